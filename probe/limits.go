package probe

// StreamCap is the largest number of concurrent streams tpsmon holds in one process,
// whatever the open-files limit allows: the one documented cap for every way of setting
// a concurrency (flags, config, keys on the screen).
const StreamCap = 10000

// Open files MaxStreams counts on: fdsPerStream per stream (its socket, and the
// simulator's end of it when the built-in simulator runs in the same process) and
// fdMargin for everything else (standard streams, the terminal, the event poller,
// listeners, output files, a retry's new connection).
const (
	fdsPerStream = 2
	fdMargin     = 100
)

// MaxStreams is how many concurrent streams this process can hold: the open-files soft
// limit less a margin, divided by the files a stream needs, at most StreamCap. Call
// RaiseOpenFileLimit first. Where the limit is unknown it is StreamCap.
func MaxStreams() int {
	soft, _, ok := openFileLimit()
	if !ok {
		return StreamCap
	}
	return maxStreams(soft)
}

// maxStreams is MaxStreams for an open-files soft limit.
func maxStreams(soft uint64) int {
	if soft <= fdMargin+fdsPerStream {
		return 1
	}
	return int(min((soft-fdMargin)/fdsPerStream, StreamCap))
}

// RaiseOpenFileLimit raises the soft open-files limit (RLIMIT_NOFILE) to the hard limit
// and returns both, as they are afterwards. It does this on Linux only; elsewhere it
// changes nothing and returns zeros. A failure leaves the limits as they were.
func RaiseOpenFileLimit() (soft, hard uint64, err error) { return raiseOpenFileLimit() }
