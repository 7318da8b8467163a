package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/themes"
)

// TestMonoHasNoColour renders every style of the mono theme and looks for colour
// sequences (SGR 30-49, 90-107, 38;/48;).
func TestMonoHasNoColour(t *testing.T) {
	st := newStyles(themes.Mono())
	styles := append([]lipgloss.Style{st.Title, st.Text, st.Faint, st.Value, st.Good, st.Warn, st.Bad,
		st.Badge, st.Focus, st.Open, st.Rule, st.Axis, st.Label, st.Target}, st.Series...)
	for i, s := range styles {
		if out := s.Render("x"); hasColour(out) {
			t.Errorf("mono style %d renders a colour: %q", i, out)
		}
	}
	if st.Good.Render("x") == st.Bad.Render("x") {
		t.Error("mono: good and bad look the same")
	}
}

var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// hasColour reports whether s sets a foreground or background colour (SGR 30-49, 90-107).
func hasColour(s string) bool {
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.Split(m[1], ";") {
			n, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0])
			if err == nil && ((n >= 30 && n <= 49) || (n >= 90 && n <= 107)) {
				return true
			}
		}
	}
	return false
}

// TestColourThemesColour makes sure the coloured themes do colour (a TrueColor profile).
func TestColourThemesColour(t *testing.T) {
	for _, name := range themes.Names() {
		th, _ := themes.Get(name, true)
		st := newStyles(th)
		w := &strings.Builder{}
		cw := colorprofile.NewWriter(w, []string{"COLORTERM=truecolor"})
		cw.Profile = colorprofile.TrueColor
		_, _ = cw.WriteString(st.Good.Render("ok"))
		coloured := hasColour(w.String())
		if coloured == th.Mono {
			t.Errorf("%s: good renders %q", name, w.String())
		}
		if ansi.Strip(st.Good.Render("ok")) != "ok" {
			t.Errorf("%s: good changes the text", name)
		}
	}
}

var colourNames = map[string]bool{"Color": true, "ANSIColor": true, "RGBColor": true, "LightDark": true,
	"Black": true, "Red": true, "Green": true, "Yellow": true, "Blue": true, "Magenta": true, "Cyan": true, "White": true,
	"BrightBlack": true, "BrightRed": true, "BrightGreen": true, "BrightYellow": true, "BrightBlue": true,
	"BrightMagenta": true, "BrightCyan": true, "BrightWhite": true}

// TestNoColourLiteralsInPanels parses the ui package and fails on a colour literal
// (lipgloss.Color, ANSI colour constants, Foreground/Background calls) outside styles.go.
func TestNoColourLiteralsInPanels(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if f == "styles.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, _ := sel.X.(*ast.Ident)
			switch {
			case sel.Sel.Name == "Foreground" || sel.Sel.Name == "Background":
				t.Errorf("%s: %s outside styles.go", fset.Position(sel.Pos()), sel.Sel.Name)
			case pkg != nil && pkg.Name == "lipgloss" && colourNames[sel.Sel.Name]:
				t.Errorf("%s: colour lipgloss.%s outside styles.go", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}
