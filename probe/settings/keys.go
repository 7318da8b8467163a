package settings

import (
	"reflect"
	"sort"
	"strings"
)

// Keys are the key paths the config file accepts, such as "ramp.hold" and
// "endpoints[].url": the yaml tags of its blocks.
func Keys() []string {
	var out []string
	for _, keys := range blockKeys() {
		out = append(out, keys...)
	}
	sort.Strings(out)
	return out
}

// blockKeys maps each block of the file (its Go type's name, such as
// "settings.rampFile") to the key paths it holds.
func blockKeys() map[string][]string {
	out := map[string][]string{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			ft, path := f.Type, prefix+name
			switch {
			case ft.Kind() == reflect.Slice && isBlock(ft.Elem()):
				walk(ft.Elem(), path+"[].")
			case isBlock(ft):
				walk(ft, path+".")
			default:
				out[t.String()] = append(out[t.String()], path)
			}
		}
	}
	walk(reflect.TypeOf(fileConfig{}), "")
	return out
}

// isBlock reports whether t is a block of the file (a struct whose fields are yaml
// keys) rather than a value type with its own decoding.
func isBlock(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if t.Field(i).Tag.Get("yaml") != "" {
			return true
		}
	}
	return false
}
