/* The migration layer's state (state.h). */
#include "migrate/state.h"

struct uvas_migrate_state uvas_mg;
