// libxml2 for the streaming XML reader. ICU support is switched off in the headers only: its
// <unicode/*.h> would clash with Foundation's bundled ICU module, and the reader never touches
// the encoding-handler structs that ICU changes.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
