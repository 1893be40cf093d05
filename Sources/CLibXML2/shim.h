// libxml2 for the streaming XML reader. ICU support is switched off in the headers only: its
// <unicode/*.h> would clash with Foundation's bundled ICU module, and the reader never touches
// the encoding-handler structs that ICU changes.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

// libxml2 also prints some errors (an input that is not UTF-8, say) to standard error through its
// generic handler, besides reporting them to the parser's own handler: the reader words them
// itself, so the printed copies are dropped, for every thread (libxml2 keeps the handler per thread).
static void feedline_xml_ignore(void *context, const char *message, ...) { (void)context; (void)message; }
static inline void feedline_xml_silence_generic_errors(void) {
    xmlThrDefSetGenericErrorFunc(NULL, feedline_xml_ignore);
    xmlSetGenericErrorFunc(NULL, feedline_xml_ignore);
}
