import App

await FeedlineCommand.main()
