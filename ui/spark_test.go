package ui

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/graph"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/themes"
)

// drawSparkCanvas is drawSpark as it was on an ntcharts canvas (graph.DrawColumns),
// written by a Style.Render per run: drawSpark must write the same bytes.
func drawSparkCanvas(w, h int, values, over []float64, target float64, style, overStyle lipgloss.Style, label func(top float64) (string, lipgloss.Style)) string {
	hi := 0.0
	for _, v := range values {
		hi = max(hi, v)
	}
	for _, v := range over {
		hi = max(hi, v)
	}
	if target > 0 && target < 2*hi {
		hi = max(hi, target)
	}
	measured := hi > 0
	if hi <= 0 {
		hi = 1
	}
	hi *= 1.05
	c := canvas.New(w, h)
	if len(values) > w {
		values = values[len(values)-w:]
	}
	scaled := make([]float64, len(values))
	for i, v := range values {
		scaled[i] = max(v, 0) / hi * float64(h)
	}
	graph.DrawColumns(&c, canvas.Point{X: w - len(scaled), Y: h - 1}, scaled, style)
	if len(over) > 0 {
		scaled := make([]float64, len(over))
		for i, v := range over {
			scaled[i] = math.Floor(v / hi * float64(h))
		}
		graph.DrawColumns(&c, canvas.Point{X: w - len(over), Y: h - 1}, scaled, overStyle)
	}
	if target > 0 && target < hi && h > 1 {
		row := h - 1 - int(target/hi*float64(h))
		if row >= 0 && row < h {
			for x := range w {
				pt := canvas.Point{X: x, Y: row}
				if c.Cell(pt).Rune == 0 {
					c.SetCell(pt, canvas.NewCellWithStyle('┈', overStyle))
				}
			}
		}
	}
	if label != nil && h > 1 && measured {
		if text, ls := label(hi); ansi.StringWidth(text) <= w {
			c.SetStringWithStyle(canvas.Point{X: 0, Y: 0}, text, ls)
		}
	}
	return renderCanvasRef(&c)
}

// TestDrawSparkAsCanvas: random sparklines (sizes, values with zeros and spikes, an
// overlay shorter or taller than the columns, targets in and out of range, labels that
// fit or not) in every theme's styles, the mono SLO looks included (bold, underlined,
// reversed), are the bytes the canvas version wrote; one grid is reused throughout.
func TestDrawSparkAsCanvas(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var g sparkGrid
	for _, name := range themes.Names() {
		th, _ := themes.Get(name, rng.IntN(2) == 0)
		st := newStyles(th)
		looks := []lipgloss.Style{st.Good, st.Warn, st.Bad, st.Faint, st.Target, st.SeriesStyle(0), st.SeriesStyle(2), {}}
		for i := range 400 {
			w, h := 1+rng.IntN(70), 1+rng.IntN(12)
			values := randValues(rng, rng.IntN(w+10))
			var over []float64
			if rng.IntN(2) == 0 {
				over = make([]float64, len(values))
				for j, v := range values {
					over[j] = v * (0.3 + rng.Float64()) // sometimes above the column
				}
			}
			target := []float64{0, 0, 30, 80, 1e6}[rng.IntN(5)]
			style, overStyle := looks[rng.IntN(len(looks))], looks[rng.IntN(len(looks))]
			label := scaleLabel(st, "tok/s", time.Duration(i%120)*time.Second)
			if rng.IntN(5) == 0 {
				label = nil
			}
			want := drawSparkCanvas(w, h, values, over, target, style, overStyle, label)
			got := drawSpark(&g, w, h, values, over, target, style, overStyle, label)
			if got != want {
				t.Fatalf("%s case %d (%dx%d, %v over %v, target %v):\n got %q\nwant %q",
					name, i, w, h, values, over, target, got, want)
			}
		}
	}
}

// randValues are n values of a live series: mostly smooth, with zeros and spikes.
func randValues(rng *rand.Rand, n int) []float64 {
	vs := make([]float64, n)
	v := 50.0
	for i := range vs {
		v = max(v+rng.NormFloat64()*8, 0)
		switch rng.IntN(12) {
		case 0:
			vs[i] = 0
		case 1:
			vs[i] = v * 4
		default:
			vs[i] = v
		}
	}
	return vs
}
