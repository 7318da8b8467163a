// Package atomicfile writes files so that a reader, or a run that is cut short, sees
// the old content or the new one, never a part: the data goes to a temporary file in
// the same directory, is synced, and the temporary file is renamed over the target.
package atomicfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
)

// Write writes data to path atomically, with mode perm for a new file (an existing
// file keeps its mode). On failure path is left as it was and no temporary file stays.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFrom(path, perm, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}

// WriteFrom is Write with the content written by fill. When fill fails, path is left
// as it was and fill's error is returned.
func WriteFrom(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		perm = st.Mode().Perm()
	}
	return write(path, perm, fill, os.Rename)
}

// WriteNew is Write for a file that must not exist yet (a snapshot that never replaces
// an earlier one): when path exists it returns an error that is fs.ErrExist and leaves
// path alone. The complete file appears at once, by a hard link from the temporary file.
func WriteNew(path string, data []byte, perm os.FileMode) error {
	fill := func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	}
	return write(path, perm, fill, func(tmp, path string) error {
		if err := os.Link(tmp, path); err != nil {
			return err
		}
		return os.Remove(tmp)
	})
}

// write fills a temporary file beside path, syncs it and puts it in place with place.
func write(path string, perm os.FileMode, fill func(w io.Writer) error, place func(tmp, path string) error) (err error) {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = place(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable where the system allows it (best effort).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
