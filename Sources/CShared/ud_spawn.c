/* posix_spawn's close-from action for ChildProcess (see ud_spawn.h). */
#define _GNU_SOURCE
#include "ud_spawn.h"

int ud_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
