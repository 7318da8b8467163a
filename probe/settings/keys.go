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
		for _, k := range keys {
			if !k.block {
				out = append(out, k.path)
			}
		}
	}
	sort.Strings(out)
	return out
}

// key is a key path of the file, and whether it holds a block of keys.
type key struct {
	path  string
	block bool
}

// name is the key's own name, the last part of its path.
func (k key) name() string { return k.path[strings.LastIndexAny(k.path, ".]")+1:] }

// blockKeys maps each block of the file (its Go type's name, such as
// "settings.rampFile") to the keys it holds.
func blockKeys() map[string][]key {
	out := map[string][]key{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			ft, path := f.Type, prefix+name
			list := ft.Kind() == reflect.Slice && isBlock(ft.Elem())
			out[t.String()] = append(out[t.String()], key{path: path, block: list || isBlock(ft)})
			switch {
			case list:
				walk(ft.Elem(), path+"[].")
			case isBlock(ft):
				walk(ft, path+".")
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
