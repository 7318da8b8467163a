package report

import (
	"bytes"
	"context"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestHTMLRendersInChromium opens the HTML report in headless Chromium with nothing but
// the file (no network) and checks that the screenshot shows both series' curves in
// their colours: the inline chart really displays. It skips when Chromium is missing.
func TestHTMLRendersInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("Chromium is not installed (Debian: apt-get install -y chromium)")
	}
	dir := t.TempDir()
	page, shot := filepath.Join(dir, "report.html"), filepath.Join(dir, "shot.png")
	if err := os.WriteFile(page, render(t, "html", "base.json", "small-gpu.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size=1200,1600",
		"file://"+page)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out.String())
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out.String())
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	pal := newPalette()
	for i, label := range []string{"base", "small-gpu"} {
		want := pal.color(i)
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if near(img.At(x, y), want) {
					n++
				}
			}
		}
		// The colour swatches alone make about 400 pixels; the three curves of four
		// points add thousands (about 5000 solid, 2900 dashed at this size).
		if n < 1500 {
			t.Errorf("%s: %d pixels of its colour %s in the screenshot, want the curves drawn", label, n, hex(want))
		}
	}
}

// near reports whether two colours differ by at most 12 in every channel (8 bits).
func near(a, b color.Color) bool {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	d := func(x, y uint32) bool { x, y = x>>8, y>>8; return x-y <= 12 || y-x <= 12 }
	return d(ar, br) && d(ag, bg) && d(ab, bb)
}
