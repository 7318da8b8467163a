package timeseries

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// TestWriterRecordsWhatTheScreenSaysOfItsOwn: what the live screen's status line says of
// its own (engine.Say: the ramp's start, an endpoint stopped for refused answers) goes
// into the next line of every endpoint, once, with its warning.
func TestWriterRecordsWhatTheScreenSaysOfItsOwn(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	e, err := engine.New(engine.Config{Observers: []engine.Observer{w}},
		[]engine.Part{{Endpoint: client.Endpoint{Name: "a"}, Control: &ctl{}}, {Endpoint: client.Endpoint{Name: "b"}, Control: &ctl{}}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	tick := func(i int) {
		for ep := range 2 {
			e.Handle(probe.Event{Endpoint: ep, Tick: &model.Tick{Start: t0.Add(time.Duration(i) * time.Second), End: t0.Add(time.Duration(i+1) * time.Second)}})
		}
	}
	tick(0)
	e.Say("stopped loading a (R retries): authentication refused", true)
	tick(1)
	tick(2)
	s, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Lines) != 6 {
		t.Fatalf("%d lines, want 6", len(s.Lines))
	}
	for i, l := range s.Lines {
		want := 0
		if i == 2 || i == 3 { // the second line of a and of b
			want = 1
		}
		if len(l.Said) != want {
			t.Fatalf("line %d (%s at %v s) said %v, want %d", i, l.Endpoint, l.ElapsedS, l.Said, want)
		}
		if want == 1 && (l.Said[0].Text != "stopped loading a (R retries): authentication refused" || !l.Said[0].Warning) {
			t.Errorf("line %d said %+v", i, l.Said[0])
		}
	}
}

// TestLinesKeepTheirWordsReadable: a line's words are written as they are, not with
// <, > and & escaped for HTML ("errors 30% > 5%" reads so in the file).
func TestLinesKeepTheirWordsReadable(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	e, err := engine.New(engine.Config{Observers: []engine.Observer{w}}, []engine.Part{{Endpoint: client.Endpoint{Name: "a&b"}, Control: &ctl{}}})
	if err != nil {
		t.Fatal(err)
	}
	e.Say("auto-ramp stopped at 1 user on a&b: errors 30% > 5% (10 requests)", true)
	t0 := time.Now()
	e.Handle(probe.Event{Tick: &model.Tick{Start: t0, End: t0.Add(time.Second)}})
	if s := buf.String(); !strings.Contains(s, `"endpoint":"a&b"`) || !strings.Contains(s, `errors 30% > 5%`) || !strings.HasSuffix(s, "}\n") {
		t.Errorf("the line escapes its words or lacks its end:\n%s", s)
	}
}
