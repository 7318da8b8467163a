package model

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// splitByConcern are the types of this package whose methods are split over files
// named for each concern, each file under the house's 400 lines (docs/architecture.md
// lists them); every other type keeps its methods in the file that declares it.
var splitByConcern = map[string]string{
	"EndpointJudgement": "the judgement: judgement.go, verdict.go (the sentence), notes.go, judgetrace.go (traces)",
	"ReportEndpoint":    "the saved form, read by the judgement (judgement.go, judgediag.go), the intervals (cidecide.go) and traces (trace.go)",
	"ReportSettings":    "the saved settings, with the one level-state rule (levelstate.go) and traces (trace.go)",
	"Hist":              "the histogram (hist.go), its JSON (histjson.go) and its intervals (ci.go, cimore.go)",
	"book":              "the level book (book.go) and its report histograms (reporthist.go)",
	"level":             "a level of the book (book.go), its intervals (cilevel.go) and what merges read (mergetrace.go, mergetraffic.go, reporthist.go)",
	"mergeLevel":        "a merged level (merge.go), its intervals (mergeci.go), traces (mergetrace.go) and traffic (mergetraffic.go)",
}

// TestMethodsBesideTheirType: a newcomer finds a type's methods in the file that
// declares it, unless the type is one of the few split by concern above.
func TestMethodsBesideTheirType(t *testing.T) {
	fset := token.NewFileSet()
	declared := map[string]string{}
	type method struct{ recv, name, file string }
	var methods []method
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch x := d.(type) {
			case *ast.GenDecl:
				for _, s := range x.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						declared[ts.Name.Name] = name
					}
				}
			case *ast.FuncDecl:
				if x.Recv == nil {
					continue
				}
				r := x.Recv.List[0].Type
				if s, ok := r.(*ast.StarExpr); ok {
					r = s.X
				}
				if id, ok := r.(*ast.Ident); ok {
					methods = append(methods, method{id.Name, x.Name.Name, name})
				}
			}
		}
	}
	if len(methods) < 100 {
		t.Fatalf("read %d methods in %d files: not this package's", len(methods), len(files))
	}
	for _, m := range methods {
		if _, split := splitByConcern[m.recv]; split || declared[m.recv] == m.file {
			continue
		}
		t.Errorf("%s.%s is in %s; its type is declared in %s: move it beside the type (or, for a type split by concern, list it with its files)",
			m.recv, m.name, m.file, declared[m.recv])
	}
	for typ := range splitByConcern {
		if _, ok := declared[typ]; !ok {
			t.Errorf("%s is listed as split by concern but not declared here", typ)
		}
	}
}
