/* Xft's headers include freetype's, which live under /usr/include/freetype2: this system
 * library target exists for pkg-config's include path (xft.pc), which SwiftPM hands to CPopup. */
#include <X11/Xft/Xft.h>
