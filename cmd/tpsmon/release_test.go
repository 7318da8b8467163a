package main

import (
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// The release builds and the container image, checked where no container builder runs:
// the Dockerfile builds with the script CI and the release archives use, with go.mod's
// Go version, and runs tpsmon as a non-root user; that script stamps the version.

// instruction is one Dockerfile instruction (continuation lines joined).
type instruction struct{ cmd, args string }

// stage is one FROM of a Dockerfile and its instructions.
type stage struct {
	from, name string
	steps      []instruction
}

// dockerfile reads the repository's Dockerfile: the ARGs before the first FROM, and the
// stages. Its syntax is small enough to read here (comments, continuations, one
// instruction a line) without a Dockerfile parser's dependencies.
func dockerfile(t *testing.T) (global map[string]string, stages []*stage) {
	t.Helper()
	data := readDoc(t, "Dockerfile")
	global = map[string]string{}
	var lines []string
	cur := ""
	for _, l := range strings.Split(data, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		cur += strings.TrimSpace(l)
		if strings.HasSuffix(cur, `\`) {
			cur = strings.TrimSuffix(cur, `\`) + " "
			continue
		}
		if cur != "" {
			lines = append(lines, cur)
		}
		cur = ""
	}
	for _, l := range lines {
		cmd, args, _ := strings.Cut(l, " ")
		in := instruction{strings.ToUpper(cmd), strings.TrimSpace(args)}
		switch {
		case in.cmd == "FROM":
			words := strings.Fields(in.args)
			s := &stage{}
			for i := 0; i < len(words); i++ {
				switch {
				case strings.HasPrefix(words[i], "--"):
				case strings.EqualFold(words[i], "AS") && i+1 < len(words):
					s.name = words[i+1]
					i++
				default:
					s.from = words[i]
				}
			}
			stages = append(stages, s)
		case len(stages) == 0 && in.cmd == "ARG":
			name, value, _ := strings.Cut(in.args, "=")
			global[name] = value
		case len(stages) > 0:
			stages[len(stages)-1].steps = append(stages[len(stages)-1].steps, in)
		}
	}
	return global, stages
}

// TestDockerfile: a multi-stage build whose build stage uses go.mod's Go version and
// the build script, and whose final stage is a minimal image that runs the static
// tpsmon binary as its entrypoint, as a non-root user.
func TestDockerfile(t *testing.T) {
	global, stages := dockerfile(t)
	if len(stages) < 2 {
		t.Fatalf("the Dockerfile has %d stages, want a build stage and a final one", len(stages))
	}
	// go.mod's go line, or its toolchain line when it has one (the Go that builds it).
	mod := readDoc(t, "go.mod")
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	goVersion := m[1]
	if tc := regexp.MustCompile(`(?m)^toolchain go(\S+)$`).FindStringSubmatch(mod); tc != nil {
		goVersion = tc[1]
	}
	build, final := stages[0], stages[len(stages)-1]
	image := os.Expand(build.from, func(k string) string { return global[k] })
	if image != "golang:"+goVersion {
		t.Errorf("the build stage is FROM %s (%s), want golang:%s, go.mod's Go version", build.from, image, goVersion)
	}
	var buildRun string
	for _, s := range build.steps {
		if s.cmd == "RUN" && strings.Contains(s.args, ".ci/build") {
			buildRun = s.args
		}
	}
	if !regexp.MustCompile(`(^|\s)\.ci/build /\S+ "?\$\{?VERSION\}?"?$`).MatchString(buildRun) {
		t.Errorf("the build stage builds with %q; want .ci/build OUT \"$VERSION\" (the script CI and the releases use)", buildRun)
	}
	if strings.HasPrefix(final.from, "golang") || final.name == build.name {
		t.Errorf("the final stage is FROM %s: want a minimal image, not the build stage's", final.from)
	}
	var user, entry, copied string
	for _, s := range final.steps {
		switch s.cmd {
		case "USER":
			user = s.args
		case "ENTRYPOINT":
			entry = s.args
		case "COPY":
			if strings.Contains(s.args, "--from="+build.name) {
				copied = strings.Fields(s.args)[len(strings.Fields(s.args))-1]
			}
		}
	}
	uid, _, _ := strings.Cut(user, ":")
	if uid == "" || uid == "0" || uid == "root" || strings.Trim(uid, "0123456789") != "" {
		t.Errorf("the final stage's USER is %q: want a numeric non-root user (Kubernetes' runAsNonRoot can check only a number)", user)
	}
	var argv []string
	if err := json.Unmarshal([]byte(entry), &argv); err != nil || len(argv) != 1 || argv[0] != copied || path.Base(copied) != "tpsmon" {
		t.Errorf("ENTRYPOINT %s: want the exec form [%q] of the binary copied from the build stage", entry, copied)
	}
}

// TestDockerignoreKeepsTheBuild: .dockerignore leaves every file the image's build reads.
func TestDockerignoreKeepsTheBuild(t *testing.T) {
	var patterns []string
	for _, l := range strings.Split(readDoc(t, ".dockerignore"), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "!") {
			patterns = append(patterns, l)
		}
	}
	need := []string{"go.mod", "go.sum", ".ci/build"}
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{range .GoFiles}}{{$.Dir}}/{{.}}
{{end}}{{end}}`, "github.com/tpsmon/tpsmon/cmd/tpsmon").Output()
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	for _, f := range strings.Fields(string(out)) {
		if rel, err := filepath.Rel(root, f); err == nil && !strings.HasPrefix(rel, "..") {
			need = append(need, filepath.ToSlash(rel))
		}
	}
	if len(need) < 50 {
		t.Fatalf("found %d files the build needs", len(need))
	}
	for _, f := range need {
		for _, p := range patterns {
			if ignored(p, f) {
				t.Errorf(".dockerignore's %q leaves %s out of the image's build", p, f)
			}
		}
	}
}

// ignored reports whether a .dockerignore pattern matches file or one of its folders.
func ignored(pattern, file string) bool {
	parts := strings.Split(file, "/")
	for i := 1; i <= len(parts); i++ {
		prefix := strings.Join(parts[:i], "/")
		if ok, _ := path.Match(pattern, prefix); ok {
			return true
		}
		if rest, ok := strings.CutPrefix(pattern, "**/"); ok {
			for j := 0; j < i; j++ {
				if ok, _ := path.Match(rest, strings.Join(parts[j:i], "/")); ok {
					return true
				}
			}
		}
	}
	return false
}

// TestCIBuildsWithTheScripts: CI runs the release builds (every platform), which build
// with .ci/build, as the Dockerfile does; and it vets the other systems' code.
func TestCIBuildsWithTheScripts(t *testing.T) {
	ci, release := readDoc(t, ".ci/run"), readDoc(t, ".ci/release")
	if !regexp.MustCompile(`(?m)^[^#]*\.ci/release `).MatchString(ci) {
		t.Error(".ci/run does not run .ci/release (the cross-builds)")
	}
	for _, goos := range []string{"darwin", "windows"} {
		if !regexp.MustCompile(`(?m)^[^#]*GOOS=` + goos + `[^\n]*go vet ./\.\.\.|(?m)^[^#]*for [a-z]+ in[^\n]*\b` + goos + `\b`).MatchString(ci) {
			t.Errorf(".ci/run does not vet GOOS=%s", goos)
		}
	}
	if !regexp.MustCompile(`(?m)^[^#]*/\.ci/build" `).MatchString(release) {
		t.Error(".ci/release does not build with .ci/build")
	}
	for _, target := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"} {
		if !strings.Contains(release, target) {
			t.Errorf(".ci/release does not build %s", target)
		}
	}
	if !strings.Contains(readDoc(t, ".ci/build"), "CGO_ENABLED=0 go build") {
		t.Error(".ci/build does not build with CGO_ENABLED=0")
	}
}

// TestBuildScriptStampsVersion: .ci/build makes a static binary that says the version
// it was given.
func TestBuildScriptStampsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tpsmon")
	}
	if runtime.GOOS != "linux" {
		t.Skip("checks a Linux binary")
	}
	bin := filepath.Join(t.TempDir(), "tpsmon")
	cmd := exec.Command("bash", filepath.Join("..", "..", ".ci", "build"), bin, "v9.8.7-test")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf(".ci/build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if got := strings.TrimSpace(string(out)); err != nil || got != "tpsmon v9.8.7-test" {
		t.Errorf("the built tpsmon --version says %q (%v), want %q", got, err, "tpsmon v9.8.7-test")
	}
	out, err = exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "tpsmon v9.8.7-test (go") {
		t.Errorf("the built tpsmon version says %q (%v)", out, err)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary is dynamically linked (program header %v): want a static build", p.Type)
		}
	}
}
