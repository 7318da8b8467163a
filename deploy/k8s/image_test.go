package k8s_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// imagePlaceholder is the image the manifests name until a user sets theirs: a name
// that says what it is, under a domain that cannot exist (.invalid, RFC 2606).
const imagePlaceholder = "registry.example.invalid/tpsmon:VERSION"

// TestImagePlaceholder: every tpsmon container runs the placeholder image, which the
// documentation tells how to replace, through the image's entrypoint (tpsmon: the
// manifests give arguments only), as the user the Dockerfile sets.
func TestImagePlaceholder(t *testing.T) {
	o := decodeAll(t)
	docker := readFile(t, "../../Dockerfile")
	entry := regexp.MustCompile(`(?m)^ENTRYPOINT \["([^"]+/tpsmon)"\]$`).FindStringSubmatch(docker)
	user := regexp.MustCompile(`(?m)^USER (\d+):(\d+)$`).FindStringSubmatch(docker)
	if entry == nil || user == nil {
		t.Fatalf("the Dockerfile has no ENTRYPOINT [\".../tpsmon\"] or no numeric USER uid:gid")
	}
	specs := map[string]*corev1.PodSpec{}
	for name, j := range o.jobs {
		specs["Job/"+name] = &j.Spec.Template.Spec
	}
	for name, p := range o.pods {
		specs["Pod/"+name] = &p.Spec
	}
	n := 0
	for name, spec := range specs {
		for _, c := range spec.Containers {
			if !strings.Contains(c.Image, "tpsmon") {
				continue
			}
			n++
			if c.Image != imagePlaceholder {
				t.Errorf("%s runs %s, want the placeholder %s", name, c.Image, imagePlaceholder)
			}
			if len(c.Command) != 0 || len(c.Args) == 0 {
				t.Errorf("%s: command %q args %q: want arguments only, for the image's entrypoint %s", name, c.Command, c.Args, entry[1])
			}
			sc := spec.SecurityContext
			if sc == nil || sc.RunAsUser == nil || sc.RunAsGroup == nil ||
				user[1] != strconv.FormatInt(*sc.RunAsUser, 10) || user[2] != strconv.FormatInt(*sc.RunAsGroup, 10) {
				t.Errorf("%s runs as %+v, the image as %s:%s", name, sc, user[1], user[2])
			}
		}
	}
	if n < 2 {
		t.Errorf("found %d tpsmon containers, want the shards' and the merge's", n)
	}
	docs := readFile(t, "../../docs/shards.md")
	for _, want := range []string{imagePlaceholder, "docker build", "docker push"} {
		if !strings.Contains(docs, want) {
			t.Errorf("docs/shards.md does not say %q", want)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
