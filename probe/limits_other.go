//go:build !linux

package probe

func openFileLimit() (soft, hard uint64, ok bool) { return 0, 0, false }

func raiseOpenFileLimit() (soft, hard uint64, err error) { return 0, 0, nil }
