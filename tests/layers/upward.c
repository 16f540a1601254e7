/*
 * upward.c - a session-layer file that includes an engine header. It is
 * compiled as harness/session/*.c are, only by the layers.upward_include_fails
 * test, which passes when the compiler cannot find the header: the proof that
 * an upward include breaks the build.
 */
#include "engine/result.h"
#include "session/session.h"

int mcps_layers_probe_upward(void);

int mcps_layers_probe_upward(void)
{
    return MCPS_VERDICT_PASS;
}
