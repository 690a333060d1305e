print("dualcam-coordinator")
