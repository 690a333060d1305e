print("dualcam-agent")
