package themes

import (
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{"", "default"}, {"default", "default"}, {"High-Contrast", "high-contrast"},
		{"colorblind", "colorblind"}, {"okabe-ito", "colorblind"}, {"mono", "mono"},
	}
	for _, c := range cases {
		for _, dark := range []bool{true, false} {
			th, err := Get(c.in, dark)
			if err != nil {
				t.Fatalf("Get(%q): %v", c.in, err)
			}
			if th.Name != c.want {
				t.Errorf("Get(%q) = %q, want %q", c.in, th.Name, c.want)
			}
		}
	}
	_, err := Get("neon", true)
	if err == nil || !strings.Contains(err.Error(), strings.Join(Names(), ", ")) {
		t.Errorf("unknown theme error %v does not list the themes", err)
	}
}

func TestEveryThemeHasEveryRole(t *testing.T) {
	for _, name := range Names() {
		for _, dark := range []bool{true, false} {
			th, _ := Get(name, dark)
			roles := []any{th.Primary, th.Accent, th.Text, th.Faint, th.Border, th.Good, th.Warn, th.Bad}
			for i, c := range roles {
				if th.Mono != (c == nil) {
					t.Errorf("%s (dark %v): role %d is %v; mono themes have no colour, others every colour", name, dark, i, c)
				}
			}
			if !th.Mono && len(th.Series) < 3 {
				t.Errorf("%s: %d series colours, want at least 3", name, len(th.Series))
			}
		}
	}
}

func TestDefaultAdaptsToBackground(t *testing.T) {
	dark, light := Default(true), Default(false)
	if dark.Text == light.Text || dark.Good == light.Good {
		t.Error("the default theme uses the same text and good colours on dark and light backgrounds")
	}
}

func TestGoodAndBadDiffer(t *testing.T) {
	for _, name := range Names() {
		th, _ := Get(name, true)
		if !th.Mono && th.Good == th.Bad {
			t.Errorf("%s: good and bad share a colour", name)
		}
	}
}

func TestColorBlindIsOkabeIto(t *testing.T) {
	okabe := map[any]bool{okabeOrange: true, okabeSkyBlue: true, okabeGreen: true, okabeYellow: true,
		okabeBlue: true, okabeVermilion: true, okabePurple: true}
	for _, dark := range []bool{true, false} {
		th := ColorBlind(dark)
		for _, c := range append([]any{th.Good, th.Warn, th.Bad}, anys(th.Series)...) {
			if !okabe[c] {
				t.Errorf("dark %v: colour %v is not in the Okabe-Ito palette", dark, c)
			}
		}
	}
}

func TestSeriesColorCycles(t *testing.T) {
	th := Default(true)
	if th.SeriesColor(len(th.Series)) != th.SeriesColor(0) {
		t.Error("SeriesColor does not cycle")
	}
	if Mono().SeriesColor(3) != nil {
		t.Error("mono has a series colour")
	}
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
