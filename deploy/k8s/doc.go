// Package k8s holds the Kubernetes manifests that run tpsmon as shards of one load
// (an Indexed Job) and merge their results (a second Job): setup.yaml, shards.yaml
// and merge.yaml. It has no code; its test decodes every manifest strictly into the
// Kubernetes API types, so that a typo fails CI.
package k8s
