/* USERDEBUG_DISABLE, read once (see ud_disable.h). */
#define _GNU_SOURCE
#include "ud_disable.h"

#include <stdlib.h>
#include <string.h>

/* Set in the cached answer once the variable was read. */
#define UD_DISABLE_READ (1u << 31)

static const struct {
    const char *name;
    unsigned bits;
} mechanisms[] = {
    {"resident", UD_MECH_RESIDENT},
    {"globals-cache", UD_MECH_GLOBALS_CACHE},
    {"all", UD_MECH_RESIDENT | UD_MECH_GLOBALS_CACHE},
};

unsigned ud_disable_parse(const char *list) {
    unsigned bits = 0;
    while (list != NULL && *list != '\0') {
        list += strspn(list, " ,");
        size_t n = strcspn(list, " ,");
        for (size_t i = 0; n > 0 && i < sizeof mechanisms / sizeof mechanisms[0]; i++)
            if (strlen(mechanisms[i].name) == n && memcmp(mechanisms[i].name, list, n) == 0) bits |= mechanisms[i].bits;
        list += n;
    }
    return bits;
}

int ud_disabled(ud_mechanism mechanism) {
    static unsigned cached; /* 0 until read; then UD_DISABLE_READ and the bits */
    unsigned bits = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (bits == 0) {
        bits = ud_disable_parse(getenv("USERDEBUG_DISABLE")) | UD_DISABLE_READ;
        __atomic_store_n(&cached, bits, __ATOMIC_RELAXED);
    }
    return (bits & (unsigned)mechanism) != 0;
}
