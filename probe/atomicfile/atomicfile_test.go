package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// entries lists dir's file names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteNewAndReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := Write(path, []byte("one"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	st, _ := os.Stat(path)
	if err != nil || string(got) != "two" || st.Mode().Perm() != 0o600 {
		t.Errorf("content %q (%v), mode %v; want \"two\" with the file's own mode 0600", got, err, st.Mode().Perm())
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only results.json", names)
	}
}

// TestFailedWriteKeepsOldFile: a write that fails half way (the disk fills, the run is
// cut) leaves the old file whole and no temporary file behind.
func TestFailedWriteKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.csv")
	if err := os.WriteFile(path, []byte("old,complete\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := WriteFrom(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "new,par")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("err %v, want the fill's error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old,complete\n" {
		t.Errorf("old file now holds %q", got)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only results.csv", names)
	}
}

// TestRenameFailureLeavesNoTemp: a target that cannot be replaced (a directory) fails
// the write and leaves the directory as it was.
func TestRenameFailureLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, []byte("data"), 0o644); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "out" {
		t.Errorf("directory holds %v, want only out", names)
	}
	if _, err := os.Stat(filepath.Join(target, "keep")); err != nil {
		t.Errorf("the directory's content is gone: %v", err)
	}
}

func TestWriteMissingDirectory(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "no", "f"), []byte("x"), 0o644); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

// TestWriteNewNeverReplaces: WriteNew claims a new name or fails with fs.ErrExist.
func TestWriteNewNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "snap.json")
	if err := WriteNew(path, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteNew(path, []byte("second"), 0o644)
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("second WriteNew: %v, want fs.ErrExist", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "first" {
		t.Errorf("file holds %q, want the first write", got)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only snap.json", names)
	}
}
