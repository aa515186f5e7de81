/*
 * Who turns the counts of other PEs' accesses on: a policy that asks for
 * them (peers) where it can act on them, i.e. with a device tier; not the
 * same policy with no device tier, where nothing can move and the counts
 * would only cost every window call (docs/policies.md); not a policy that
 * does not ask; always UVAS_PEER_COUNTS=1.
 */
#include "check.h"
#include "uvas/gate.h"

static bool counting_under(const char *policy, const char *device, const char *peer_counts)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "64M");
    tu_setenv("UVAS_POLICY", policy);
    if (device)
        tu_setenv("UVAS_DEVICE", device);
    if (peer_counts)
        tu_setenv("UVAS_PEER_COUNTS", peer_counts);
    tu_init_env();
    bool on = uvas_gate_counting_on();
    CHECK_OK(uvas_finalize());
    return on;
}

int main(void)
{
    CHECK(!counting_under("peers", "none", NULL),
          "the peers policy with no device tier counts other PEs' accesses");
    CHECK(counting_under("peers", "none", "1"), "UVAS_PEER_COUNTS=1 with no device tier: off");
    CHECK(!counting_under("first-touch", NULL, NULL), "first-touch counts other PEs' accesses");
    tu_clear_env();
    tu_init_env();
    struct uvas_range_desc d;
    CHECK_OK(uvas_range(&d));
    char note[256];
    snprintf(note, sizeof note, "%s", d.device_note ? d.device_note : "");
    CHECK_OK(uvas_finalize());
    if (!d.device_present) /* what ran above passed; the case needing a device did not run */
        SKIP("no device tier (%s): the peers policy with one not tried", note);
    CHECK(counting_under("peers", NULL, NULL), "the peers policy with a device tier counts "
          "nothing");
    printf("counting: peers with a device tier, UVAS_PEER_COUNTS=1; not peers without one, "
           "nor first-touch\n");
    return 0;
}
