package workload

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParseLengths(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Lengths
	}{
		{"128", Lengths{Kind: Fixed, A: 128}},
		{" 1 ", Lengths{Kind: Fixed, A: 1}},
		{"uniform:50:150", Lengths{Kind: Uniform, A: 50, B: 150}},
		{"Uniform:7:7", Lengths{Kind: Uniform, A: 7, B: 7}},
		{"normal:100:20", Lengths{Kind: Normal, A: 100, B: 20}},
		{"normal:1.5:0", Lengths{Kind: Normal, A: 1.5, B: 0}},
	} {
		got, err := ParseLengths(tc.in)
		if err != nil || got.Kind != tc.want.Kind || got.A != tc.want.A || got.B != tc.want.B {
			t.Errorf("ParseLengths(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if err == nil && got.String() != strings.TrimSpace(tc.in) {
			t.Errorf("ParseLengths(%q).String() = %q", tc.in, got.String())
		}
	}
	for in, why := range map[string]string{
		"":                    "not a whole number",
		"0":                   "not a whole number",
		"-5":                  "not a whole number",
		"1.5":                 "not a whole number",
		"2000000":             "not a whole number",
		"uniform:150:50":      "above the high bound",
		"uniform:0:50":        "the low bound",
		"uniform:5":           "two bounds",
		"uniform:5:x":         "the high bound",
		"normal:100":          "a mean and a standard deviation",
		"normal:0:5":          "the mean",
		"normal:100:-1":       "the standard deviation",
		"normal:NaN:1":        "the mean",
		"normal:100:Inf":      "the standard deviation",
		"zipf:1:2":            "unknown distribution",
		"uniform:1:2:3":       "two bounds",
		"normal:1e300:1":      "the mean",
		"uniform:1:999999999": "the high bound",
	} {
		_, err := ParseLengths(in)
		var le *LengthError
		if !errors.As(err, &le) || le.Input != in || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseLengths(%q) error %v, want a LengthError saying %q", in, err, why)
			continue
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("ParseLengths(%q) names a flag: %v", in, err)
		}
	}
}

func draws(l Lengths, seed uint64, n int) []int {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]int, n)
	for i := range out {
		out[i] = l.Draw(r)
	}
	return out
}

func meanSD(xs []int) (float64, float64) {
	var s, q float64
	for _, x := range xs {
		s += float64(x)
		q += float64(x) * float64(x)
	}
	m := s / float64(len(xs))
	return m, math.Sqrt(q/float64(len(xs)) - m*m)
}

func TestDrawLengths(t *testing.T) {
	fixed, _ := ParseLengths("64")
	for _, v := range draws(fixed, 1, 100) {
		if v != 64 {
			t.Fatalf("fixed 64 drew %d", v)
		}
	}
	uni, _ := ParseLengths("uniform:50:150")
	seen := map[int]bool{}
	xs := draws(uni, 2, 20000)
	for _, v := range xs {
		if v < 50 || v > 150 {
			t.Fatalf("uniform:50:150 drew %d", v)
		}
		seen[v] = true
	}
	if len(seen) != 101 {
		t.Errorf("uniform:50:150 drew %d distinct values in 20,000 draws, want all 101", len(seen))
	}
	if m, _ := meanSD(xs); math.Abs(m-100) > 1 {
		t.Errorf("uniform:50:150 mean %.2f, want 100", m)
	}
	norm, _ := ParseLengths("normal:200:30")
	if m, sd := meanSD(draws(norm, 3, 20000)); math.Abs(m-200) > 1 || math.Abs(sd-30) > 1 {
		t.Errorf("normal:200:30 drew mean %.2f sd %.2f", m, sd)
	}
	wide, _ := ParseLengths("normal:2:50") // most draws would be below 1
	for _, v := range draws(wide, 4, 5000) {
		if v < 1 {
			t.Fatalf("normal:2:50 drew %d, below the clip at 1", v)
		}
	}
	a, b := draws(uni, 9, 50), draws(uni, 9, 50)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different draws at %d", i)
		}
	}
}

func TestSyntheticSource(t *testing.T) {
	prompt, _ := ParseLengths("uniform:40:60")
	maxTok, _ := ParseLengths("uniform:50:150")
	s, err := NewSynthetic(prompt, maxTok, 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	firsts := map[string]int{}
	seenMax := map[int]bool{}
	for i := range uint64(500) {
		r := s.Request(i)
		if r.MaxTokens < 50 || r.MaxTokens > 150 {
			t.Fatalf("request %d asks max_tokens %d", i, r.MaxTokens)
		}
		seenMax[r.MaxTokens] = true
		if r.PromptTokens < 40 || r.PromptTokens > 60 {
			t.Fatalf("request %d has %d prompt tokens", i, r.PromptTokens)
		}
		if w := len(strings.Fields(r.Prompt)); math.Abs(float64(w-r.PromptTokens)) > 2 {
			t.Errorf("request %d: %d words for %d tokens", i, w, r.PromptTokens)
		}
		firsts[strings.Join(strings.Fields(r.Prompt)[:4], " ")]++
		if again := s.Request(i); again.Prompt != r.Prompt || again.MaxTokens != r.MaxTokens {
			t.Fatalf("request %d differs when asked again", i)
		}
	}
	if len(seenMax) < 80 {
		t.Errorf("max_tokens took only %d distinct values over 500 requests", len(seenMax))
	}
	if len(firsts) < 495 {
		t.Errorf("only %d distinct 4-word openings over 500 prompts: they should differ from the start", len(firsts))
	}
	if s.Request(0).Prompt == mustSynth(t, prompt, maxTok, 0, 8).Request(0).Prompt {
		t.Errorf("seeds 7 and 8 gave the same first prompt")
	}
	if r := mustSynth(t, prompt, Lengths{}, 0, 7).Request(3); r.MaxTokens != 0 {
		t.Errorf("no max_tokens distribution: request asks %d, want 0 (the run's own)", r.MaxTokens)
	}
}

func mustSynth(t *testing.T, p, m Lengths, prefix int, seed uint64) *Synthetic {
	t.Helper()
	s, err := NewSynthetic(p, m, prefix, seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSharedPrefix(t *testing.T) {
	s := mustSynth(t, Fix(30), Fix(10), 100, 1)
	p := s.Prefix()
	if n := len(strings.Fields(p)); n != 100 {
		t.Fatalf("prefix of %d words, want 100", n)
	}
	a, b := s.Request(0), s.Request(1)
	for _, r := range []Request{a, b} {
		if !strings.HasPrefix(r.Prompt, p+" ") || r.PromptTokens != 130 {
			t.Errorf("prompt does not start with the shared prefix, or has %d tokens: %.40q", r.PromptTokens, r.Prompt)
		}
	}
	if a.Prompt[len(p):] == b.Prompt[len(p):] {
		t.Errorf("two requests have the same text after the prefix")
	}
	if _, err := NewSynthetic(Fix(1), Fix(1), -1, 0); err == nil {
		t.Errorf("a negative prefix was accepted")
	}
	custom := mustSynth(t, Fix(5), Fix(1), 0, 1)
	custom.Text = func(i uint64, n int) string { return strings.Repeat("x ", n) }
	if got := custom.Request(2).Prompt; got != "x x x x x " {
		t.Errorf("Text hook not used: %q", got)
	}
}

func TestSampledSendsEveryEntryInASeededOrder(t *testing.T) {
	entries := []Entry{{Prompt: "a"}, {Prompt: "b", MaxTokens: 9}, {Messages: []Message{{Role: "user", Content: "c"}}}, {Prompt: "d"}}
	d, err := NewSampled(entries, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i := range uint64(8) {
		r := d.Request(i)
		key := r.Prompt
		if r.Messages != nil {
			key = r.Messages[0].Content
		}
		seen[key]++
		if key == "b" && r.MaxTokens != 9 {
			t.Errorf("entry b lost its max_tokens: %d", r.MaxTokens)
		}
		if d.Request(i+4).Prompt != r.Prompt {
			t.Errorf("request %d and %d (the next pass) differ", i, i+4)
		}
	}
	for _, k := range []string{"a", "b", "c", "d"} {
		if seen[k] != 2 {
			t.Errorf("entry %s sent %d times in two passes, want 2", k, seen[k])
		}
	}
	if _, err := NewSampled(nil, 1, 0); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty dataset: %v", err)
	}
	p, _ := NewSampled(entries, 3, 20)
	for i := range uint64(4) {
		r := p.Request(i)
		text := r.Prompt
		if r.Messages != nil {
			text = r.Messages[0].Content
		}
		if n := len(strings.Fields(text)); n != 21 {
			t.Errorf("prefixed request %d has %d words, want 20 + 1", i, n)
		}
	}
	if entries[2].Messages[0].Content != "c" {
		t.Errorf("the prefix changed the dataset itself")
	}
}
