package settings

import (
	"bytes"
	"os"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestK8sConfigLoads: the tpsmon.yaml the Kubernetes manifests put in the shards'
// ConfigMap is a config tpsmon accepts (strictly, as --config reads it).
func TestK8sConfigLoads(t *testing.T) {
	data, err := os.ReadFile("../../deploy/k8s/setup.yaml")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var cm struct {
			Kind     string `yaml:"kind"`
			Metadata struct{ Name string }
			Data     map[string]string `yaml:"data"`
		}
		if err := yaml.Unmarshal(doc, &cm); err != nil {
			t.Fatal(err)
		}
		if cm.Kind != "ConfigMap" || cm.Metadata.Name != "tpsmon-config" {
			continue
		}
		found = true
		cfg, err := parseConfig("tpsmon.yaml", []byte(cm.Data["tpsmon.yaml"]))
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Endpoints) != 1 || len(cfg.Ramp.Levels) == 0 {
			t.Errorf("config %+v: want one endpoint and a ramp", cfg)
		}
	}
	if !found {
		t.Error("no ConfigMap tpsmon-config in deploy/k8s/setup.yaml")
	}
}
