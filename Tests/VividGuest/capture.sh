#!/bin/sh
# Runs inside the vivid guest (tools/vivid-vm/run.sh): lists the camera, records from it
# in two pixel formats and with no --source, then unplugs it mid-recording. Results land in /out for the host
# side of VividCaptureTests to check. $1 is the dualcam-agent binary.
agent="$1"
record() {
    name="$1"; shift
    "$agent" record --source v4l2 --device /dev/video0 --size 320x180 --fps 30 --preset ultrafast \
        --telemetry-seconds 1 --frame-log "/out/$name.frames" --out "/out/$name" "$@" > "/out/$name.log" 2>&1
    echo $? > "/out/$name.rc"
}
"$agent" cameras > /out/cameras.log 2>&1; echo $? > /out/cameras.rc
record yu12 --duration 3
record yuyv --duration 3 --pixel-format YUYV
# No --source: the agent must find the camera by itself.
"$agent" record --size 320x180 --fps 30 --preset ultrafast --duration 2 --out /out/auto > /out/auto.log 2>&1
echo $? > /out/auto.rc
"$agent" record --source v4l2 --device /dev/video0 --size 320x180 --fps 30 --preset ultrafast \
    --segment-seconds 1 --duration 30 --out /out/unplug > /out/unplug.log 2>&1 &
pid=$!
sleep 7
# vivid's "Disconnect" button control acts as if the USB cable were pulled.
v4l2-ctl -d /dev/video0 -c disconnect=1 > /out/disconnect.log 2>&1
wait $pid
echo $? > /out/unplug.rc
