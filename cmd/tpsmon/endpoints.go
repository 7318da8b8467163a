package main

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"

	"github.com/tpsmon/tpsmon/probe/client"
)

// sharedFlags are the endpoint flags that apply to every endpoint when given.
type sharedFlags struct {
	headers http.Header
	extra   map[string]any
	keyEnv  string
}

// resolveShared checks --header, --extra-body and --api-key-env.
func resolveShared(f *runFlags) (sharedFlags, error) {
	s := sharedFlags{headers: http.Header{}, keyEnv: f.apiKeyEnv}
	for _, h := range f.headers {
		if err := parseHeader(h, s.headers); err != nil {
			return s, usageErrorf("%v", err)
		}
	}
	if f.extraBody != "" {
		var err error
		if s.extra, err = parseExtraBody(f.extraBody); err != nil {
			return s, usageErrorf("%v", err)
		}
	}
	if f.apiKeyEnv == "" {
		return s, usageErrorf("--api-key-env: want the name of an environment variable, e.g. OPENAI_API_KEY")
	}
	if err := client.CheckKeyEnv(f.apiKeyEnv); err != nil {
		return s, fieldUsage(err, flagOrigin("--api-key-env"))
	}
	return s, nil
}

// endpointSpec is one endpoint as configured, before its URL is checked.
type endpointSpec struct {
	where    string // for messages: "--url", "$OPENAI_BASE_URL", "config F: line N: endpoints[i] (name)"
	url      string
	urlFrom  origin // where the URL was written
	name     string
	model    string
	keyEnv   string
	api      string // "" keeps the workload's
	insecure *bool  // nil keeps the workload's
	headers  http.Header
	extra    map[string]any
}

// endpointSpecs lists the endpoints to measure: --url, else the config's, else
// $OPENAI_BASE_URL; none means the simulator.
func endpointSpecs(f *runFlags, cfg *fileConfig, shared sharedFlags, changed func(string) bool, getenv func(string) string) ([]endpointSpec, error) {
	one := func(where, url string, from origin) []endpointSpec {
		return []endpointSpec{{where: where, url: url, urlFrom: from, model: f.model, keyEnv: shared.keyEnv, headers: shared.headers, extra: shared.extra}}
	}
	switch {
	case f.url != "":
		return one("--url", f.url, flagOrigin("--url")), nil
	case len(cfg.Endpoints) > 0:
		specs := make([]endpointSpec, 0, len(cfg.Endpoints))
		for i := range cfg.Endpoints {
			s, err := configSpec(cfg, i, f, shared, changed)
			if err != nil {
				return nil, err
			}
			specs = append(specs, s)
		}
		return specs, nil
	case getenv(baseURLEnv) != "":
		return one("$"+baseURLEnv, getenv(baseURLEnv), envOrigin(baseURLEnv)), nil
	}
	return nil, nil
}

// configSpec is endpoint i of the config file with the flags given applied over it.
func configSpec(cfg *fileConfig, i int, f *runFlags, shared sharedFlags, changed func(string) bool) (endpointSpec, error) {
	ec := cfg.Endpoints[i]
	s := endpointSpec{where: cfg.where(i), url: ec.URL, urlFrom: cfg.keyOrigin(i, "url"), name: ec.Name, model: ec.Model, keyEnv: shared.keyEnv}
	if ec.URL == "" {
		return s, usageErrorf("%s: url is required, e.g. url: http://127.0.0.1:8000/v1", s.where)
	}
	s.headers = http.Header{}
	for k, v := range ec.Headers {
		if err := parseHeader(k+": "+v, s.headers); err != nil {
			return s, usageErrorf("%s: headers: %v", s.where, strings.TrimSpace(strings.TrimPrefix(err.Error(), "--header")))
		}
	}
	maps.Copy(s.headers, shared.headers)
	s.extra = maps.Clone(ec.ExtraBody)
	if len(shared.extra) > 0 && s.extra == nil {
		s.extra = map[string]any{}
	}
	maps.Copy(s.extra, shared.extra)
	if changed("model") {
		s.model = f.model
	}
	if ec.APIKeyEnv != "" && !changed("api-key-env") {
		s.keyEnv = string(ec.APIKeyEnv)
	}
	if ec.API != "" && !changed("api") {
		s.api = string(ec.API)
	}
	if !changed("insecure") {
		s.insecure = &ec.Insecure
	}
	return s, nil
}

// build is the endpoint of s sending the workload w, and a note when its key is missing.
func (s endpointSpec) build(w client.Endpoint, getenv func(string) string) (client.Endpoint, string, error) {
	u, err := client.NormalizeBaseURL(s.url)
	if err != nil {
		return w, "", fieldUsage(err, s.urlFrom)
	}
	ep := w
	ep.BaseURL = u
	ep.Name = s.name
	ep.Model = s.model
	ep.APIKey = getenv(s.keyEnv)
	ep.Headers = s.headers
	ep.ExtraBody = s.extra
	if s.api != "" {
		ep.API = s.api
	}
	if s.insecure != nil {
		ep.Insecure = *s.insecure
	}
	var note string
	if ep.APIKey == "" && s.keyEnv != defaultKeyEnv {
		note = fmt.Sprintf("$%s is empty or unset, so %s gets no API key", s.keyEnv, s.where)
	}
	return ep, note, nil
}

// origin is where a value was written, for messages: a flag, an environment variable,
// or a key at a line of the config file.
type origin struct {
	where   string // "--url", "$OPENAI_BASE_URL", "config F: line N: endpoints[0].url"
	writeAs string // how to write a corrected value there: "--url ", "OPENAI_BASE_URL=", "url: "
}

func flagOrigin(flag string) origin { return origin{where: flag, writeAs: flag + " "} }

func envOrigin(name string) origin { return origin{where: "$" + name, writeAs: name + "="} }

// fieldFlags maps the Endpoint settings that the client names (FieldError.Field) to flags.
var fieldFlags = map[string]string{
	client.FieldURL:          "--url",
	client.FieldAPI:          "--api",
	client.FieldModel:        "--model",
	client.FieldMaxTokens:    "--max-tokens",
	client.FieldPromptTokens: "--prompt-tokens",
	client.FieldTimeout:      "--timeout",
	client.FieldAPIKeyEnv:    "--api-key-env",
}

// fieldUsage is a usage error for err said at from: a *client.FieldError names its
// setting by field; the message names where the value was written instead.
func fieldUsage(err error, from origin) error {
	var fe *client.FieldError
	if !errors.As(err, &fe) {
		return usageErrorf("%s: %v", from.where, err)
	}
	msg := from.where
	if fe.Value != "" {
		msg += fmt.Sprintf(" %q", fe.Value)
	}
	msg += ": " + fe.Problem
	if fe.Suggest != "" {
		msg += "; write e.g. " + from.writeAs + fe.Suggest
	}
	return usageErrorf("%s", msg)
}

// flagUsage is a usage error naming the flag of a refused setting (a
// *client.FieldError, e.g. from client.New), or err as it is.
func flagUsage(err error) error {
	var fe *client.FieldError
	if errors.As(err, &fe) {
		if flag, ok := fieldFlags[fe.Field]; ok {
			return fieldUsage(err, flagOrigin(flag))
		}
	}
	return usageErrorf("%v", err)
}
