#include "cx11.h"
int cx11_placeholder(void) { return 0; }
