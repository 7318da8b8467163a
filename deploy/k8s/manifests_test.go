package k8s_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// objects are the manifests' documents, decoded, by kind and name.
type objects struct {
	configMaps map[string]*corev1.ConfigMap
	pvcs       map[string]*corev1.PersistentVolumeClaim
	pods       map[string]*corev1.Pod
	jobs       map[string]*batchv1.Job
	files      map[string][]string // file -> "Kind/name" of its documents
}

// decodeAll decodes every document of every *.yaml file of the directory strictly into
// its Kubernetes API type: an unknown or misspelt field, a wrong type, an unknown kind
// or a document without a name fails.
func decodeAll(t *testing.T) *objects {
	t.Helper()
	names, err := filepath.Glob("*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	o := &objects{configMaps: map[string]*corev1.ConfigMap{}, pvcs: map[string]*corev1.PersistentVolumeClaim{},
		pods: map[string]*corev1.Pod{}, jobs: map[string]*batchv1.Job{}, files: map[string][]string{}}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			id, err := o.decode(doc)
			if err != nil {
				t.Errorf("%s, document %d: %v", name, i+1, err)
				continue
			}
			o.files[name] = append(o.files[name], id)
		}
	}
	return o
}

// decode decodes one document by its apiVersion and kind, strictly.
func (o *objects) decode(doc []byte) (string, error) {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return "", err
	}
	var (
		obj  any
		name func() string
	)
	switch tm.APIVersion + " " + tm.Kind {
	case "v1 ConfigMap":
		v := &corev1.ConfigMap{}
		obj, name = v, func() string { o.configMaps[v.Name] = v; return v.Name }
	case "v1 PersistentVolumeClaim":
		v := &corev1.PersistentVolumeClaim{}
		obj, name = v, func() string { o.pvcs[v.Name] = v; return v.Name }
	case "v1 Pod":
		v := &corev1.Pod{}
		obj, name = v, func() string { o.pods[v.Name] = v; return v.Name }
	case "batch/v1 Job":
		v := &batchv1.Job{}
		obj, name = v, func() string { o.jobs[v.Name] = v; return v.Name }
	default:
		return "", fmt.Errorf("unexpected apiVersion %q kind %q", tm.APIVersion, tm.Kind)
	}
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return "", fmt.Errorf("%s: %v", tm.Kind, err)
	}
	n := name()
	if n == "" {
		return "", fmt.Errorf("%s without metadata.name", tm.Kind)
	}
	return tm.Kind + "/" + n, nil
}

// TestStrictDecodingCatchesTypos: the decoding the manifests go through refuses a
// misspelt field, so that the test below means something.
func TestStrictDecodingCatchesTypos(t *testing.T) {
	o := &objects{jobs: map[string]*batchv1.Job{}}
	typo := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec:\n  completionMode: Indexed\n  paralelism: 4\n"
	if _, err := o.decode([]byte(typo)); err == nil || !strings.Contains(err.Error(), "paralelism") {
		t.Errorf("a misspelt field was accepted: %v", err)
	}
	wrongType := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: [1]}\n"
	if _, err := o.decode([]byte(wrongType)); err == nil {
		t.Error("a list as ConfigMap data was accepted")
	}
}

func TestManifests(t *testing.T) {
	o := decodeAll(t)
	want := map[string][]string{
		"setup.yaml":  {"ConfigMap/tpsmon-config", "PersistentVolumeClaim/tpsmon-results", "Pod/tpsmon-results"},
		"shards.yaml": {"Job/tpsmon-shards"},
		"merge.yaml":  {"Job/tpsmon-merge"},
	}
	for f, ids := range want {
		if !slices.Equal(o.files[f], ids) {
			t.Errorf("%s holds %v, want %v", f, o.files[f], ids)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	n := checkShardJob(t, o, o.jobs["tpsmon-shards"])
	checkMergeJob(t, o, o.jobs["tpsmon-merge"], n)
	if pvc := o.pvcs["tpsmon-results"]; !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("the results volume is %v: shards on several nodes need ReadWriteMany", pvc.Spec.AccessModes)
	}
	checkVolumes(t, o, &o.pods["tpsmon-results"].Spec)
}

// checkShardJob checks the Indexed Job and returns its number of shards.
func checkShardJob(t *testing.T, o *objects, j *batchv1.Job) int {
	t.Helper()
	s := j.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism || *s.Completions < 2 {
		t.Fatalf("completions %v and parallelism %v: want the same N >= 2 (every shard runs at once)", s.Completions, s.Parallelism)
	}
	n := int(*s.Completions)
	if s.BackoffLimit == nil || *s.BackoffLimit != 0 || s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("backoffLimit %v, restartPolicy %q: a retried shard would start late; want 0 and Never", s.BackoffLimit, s.Template.Spec.RestartPolicy)
	}
	c := onlyContainer(t, &s.Template.Spec)
	wantArgs := []string{"bench", "--config=/etc/tpsmon/tpsmon.yaml", fmt.Sprintf("--shard=$(JOB_COMPLETION_INDEX)/%d", n),
		"--start-at=$(START_AT)", "--out=/results/shard-$(JOB_COMPLETION_INDEX).json"}
	if !slices.Equal(c.Args, wantArgs) {
		t.Errorf("shard args\n %q\nwant\n %q", c.Args, wantArgs)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if e := env["JOB_COMPLETION_INDEX"]; e.ValueFrom == nil || e.ValueFrom.FieldRef == nil ||
		e.ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("JOB_COMPLETION_INDEX = %+v, want the completion-index annotation", e)
	}
	if e := env["START_AT"]; e.ValueFrom == nil || e.ValueFrom.ConfigMapKeyRef == nil ||
		e.ValueFrom.ConfigMapKeyRef.Name != "tpsmon-start" || e.ValueFrom.ConfigMapKeyRef.Key != "start-at" {
		t.Errorf("START_AT = %+v, want the start-at key of the tpsmon-start ConfigMap", e)
	}
	mounts := checkVolumes(t, o, &s.Template.Spec)
	if mounts["/etc/tpsmon"] != "config" || mounts["/results"] != "results" {
		t.Errorf("shard mounts %v", mounts)
	}
	cfg := o.configMaps["tpsmon-config"]
	if _, ok := cfg.Data["tpsmon.yaml"]; !ok {
		t.Errorf("--config names tpsmon.yaml, which the ConfigMap lacks (keys %v)", cfg.Data)
	}
	return n
}

// checkMergeJob checks that the merge reads exactly the n files the shards write.
func checkMergeJob(t *testing.T, o *objects, j *batchv1.Job, n int) {
	t.Helper()
	if j.Spec.CompletionMode != nil && *j.Spec.CompletionMode != batchv1.NonIndexedCompletion {
		t.Errorf("merge completionMode %v", *j.Spec.CompletionMode)
	}
	if j.Spec.Completions == nil || *j.Spec.Completions != 1 || j.Spec.Parallelism == nil || *j.Spec.Parallelism != 1 {
		t.Errorf("merge completions %v parallelism %v, want 1 and 1", j.Spec.Completions, j.Spec.Parallelism)
	}
	c := onlyContainer(t, &j.Spec.Template.Spec)
	want := []string{"merge"}
	for i := range n {
		want = append(want, fmt.Sprintf("/results/shard-%d.json", i))
	}
	want = append(want, "--out=/results/merged.json", "--csv=/results/merged.csv")
	if !slices.Equal(c.Args, want) {
		t.Errorf("merge args\n %q\nwant (one file per shard of the Indexed Job)\n %q", c.Args, want)
	}
	if mounts := checkVolumes(t, o, &j.Spec.Template.Spec); mounts["/results"] != "results" {
		t.Errorf("merge mounts %v", mounts)
	}
	if shard := onlyContainer(t, &o.jobs["tpsmon-shards"].Spec.Template.Spec); shard.Image != c.Image {
		t.Errorf("the shards run %s and the merge %s: merge refuses reports of another tpsmon", shard.Image, c.Image)
	}
}

func onlyContainer(t *testing.T, spec *corev1.PodSpec) *corev1.Container {
	t.Helper()
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(spec.Containers))
	}
	c := &spec.Containers[0]
	if sc := c.SecurityContext; sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("container %s: want allowPrivilegeEscalation false and a read-only root", c.Name)
	}
	return c
}

// checkVolumes checks that every volume a pod uses exists (ConfigMaps and claims of
// the manifests) and every mount names a volume; it returns mount path -> volume.
func checkVolumes(t *testing.T, o *objects, spec *corev1.PodSpec) map[string]string {
	t.Helper()
	vols := map[string]bool{}
	for _, v := range spec.Volumes {
		vols[v.Name] = true
		switch {
		case v.ConfigMap != nil && o.configMaps[v.ConfigMap.Name] == nil:
			t.Errorf("volume %s: no ConfigMap %s in the manifests", v.Name, v.ConfigMap.Name)
		case v.PersistentVolumeClaim != nil && o.pvcs[v.PersistentVolumeClaim.ClaimName] == nil:
			t.Errorf("volume %s: no claim %s in the manifests", v.Name, v.PersistentVolumeClaim.ClaimName)
		}
	}
	mounts := map[string]string{}
	for _, c := range spec.Containers {
		for _, m := range c.VolumeMounts {
			if !vols[m.Name] {
				t.Errorf("container %s mounts %s, which the pod does not have", c.Name, m.Name)
			}
			mounts[m.MountPath] = m.Name
		}
	}
	return mounts
}
