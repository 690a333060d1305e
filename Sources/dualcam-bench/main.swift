print("dualcam-bench")
