#!/bin/sh
# Starts Chromium without CAP_SYS_NICE. A desktop user's browser cannot raise its own
# priority; run as root (CI, these sandboxes) Chromium lifts its GPU process to nice -8,
# above the rig's agents on the same 2 cores, and the measurement would be of a machine
# no operator has (the agents dropped frames under it).
exec setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice "${DUALCAM_CHROMIUM:-/usr/bin/chromium}" "$@"
