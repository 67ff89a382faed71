#if canImport(Glibc)
    import Glibc
#endif

/// Seconds on the monotonic clock: for deadlines and timeouts, which a change of the wall clock
/// must neither stretch nor cut.
package func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
