#!/bin/sh
# Runs inside the vivid guest (tools/vivid-vm/run.sh): lists the camera, records from it
# in two pixel formats and with no --source, then unplugs it mid-recording. Results land in /out for the host
# side of VividCaptureTests to check. $1 is the dualcam-agent binary, $2 dualcam-coordinator.
agent="$1"
coordinator="$2"
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
# The unplug above removed the camera for good: vivid is loaded again for what follows.
rmmod vivid && insmod /vivid-vm/vivid.ko $(cat /vivid-vm/ctl/vivid-options)
n=0
while [ ! -e /dev/video0 ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
# Camera controls (docs/CONTROLS.md): listed locally, a dim recording, then brightness set
# over the protocol by the coordinator's `camera` command to an agent serving on
# loopback, read back from the driver, and a bright recording.
"$agent" controls --device /dev/video0 --state /tmp/controls > /out/controls.log 2>&1; echo $? > /out/controls.rc
"$agent" controls --device /dev/video0 --state /tmp/controls --set brightness=40 > /out/dim-set.log 2>&1
record dim --duration 2
ip link set lo up
"$coordinator" id --state /tmp/coordinator > /out/coordinator.id 2>&1
"$agent" id --state /tmp/agent > /out/agent.id 2>&1
"$agent" run --source v4l2 --device /dev/video0 --size 320x180 --fps 30 --state /tmp/agent --name vivid-node --listen 127.0.0.1 \
    --port 7420 --no-mdns --first-pairing-window 0 --trust "$(cat /out/coordinator.id)" > /out/agent-run.log 2>&1 &
served=$!
n=0
while ! grep -q LISTENING /out/agent-run.log && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
remote() {
    name="$1"; shift
    "$coordinator" camera --agent "127.0.0.1:7420,$(cat /out/agent.id)" --state /tmp/coordinator "$@" > "/out/$name.log" 2>&1
    echo $? > "/out/$name.rc"
}
remote remote-list --list
remote remote-set --set brightness=200
remote remote-bad --set brightness=999 --set contrast=abc --set nosuch=1
v4l2-ctl -d /dev/video0 -C brightness > /out/readback.log 2>&1
kill $served; wait $served
record bright --duration 2
