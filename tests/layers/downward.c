/*
 * downward.c - the control for upward.c: the same kind of session-layer file,
 * including only its own layer and the ones below, must build. Without it,
 * upward.c failing for any other reason would look like a proof.
 */
#include "base/buf.h"
#include "codec/json.h"
#include "session/session.h"
#include "transport/transport.h"

int mcps_layers_probe_downward(void);

int mcps_layers_probe_downward(void)
{
    return MCPS_SHAPE_REQUEST;
}
