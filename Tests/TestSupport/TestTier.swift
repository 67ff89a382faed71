// TestSupport is a plain target, so `swift build -c release` (install.sh, demo.sh) builds it too,
// where the Testing module is not there: the trait exists only where it can.
#if canImport(Testing)
    import Foundation
    public import Testing

    /// The two tiers of the suite. `swift test` alone runs the unit and fast integration tier (a
    /// real Xvfb, real peers, the built binary); the real-desktop tier (compositors, clipboard
    /// managers, notification daemons, launchers and key grabs, release builds in a clone,
    /// install.sh) runs when `USERDEBUG_TEST_TIER` is `desktop` or `all`, as `Scripts/test.sh`
    /// sets it. A suite in the desktop tier says so with `.desktopTier`; Scripts/tiers.py finds
    /// those suites for test.sh's second run.
    public enum TestTier {
        /// Whether this run includes the real-desktop tier.
        public static var includesDesktop: Bool {
            switch ProcessInfo.processInfo.environment["USERDEBUG_TEST_TIER"] {
            case "desktop", "all": true
            default: false
            }
        }
    }

    extension Trait where Self == ConditionTrait {
        /// Puts a suite in the real-desktop tier (see `TestTier`): `swift test` alone leaves it
        /// out, `Scripts/test.sh` runs it.
        public static var desktopTier: Self {
            .enabled(if: TestTier.includesDesktop, "the real-desktop tier: Scripts/test.sh runs it")
        }
    }
#endif
