print("userdebug")
