#ifndef USERDEBUG_CX11_H
#define USERDEBUG_CX11_H
/* Placeholder until the clipboard shim lands. */
int cx11_placeholder(void);
#endif
