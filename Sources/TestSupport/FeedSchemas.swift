import App
import Pipeline

extension FeedSchema {
    /// What feedline's bundled feeds bring to a store, exactly as the composition root registers
    /// them (the feeds' migrations, then the views across feeds).
    public static let feedline = AppEnvironment.standardSchema
}
