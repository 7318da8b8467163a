package settings

import (
	"fmt"
	"reflect"
)

// Layer is where a value comes from. Layers are ordered: a value of a higher layer
// replaces one of a lower layer (Apply).
type Layer int

// The layers, lowest first.
const (
	Default Layer = iota // the flag's default
	Env                  // an environment variable
	File                 // a key of the --config file
	Flag                 // a flag given on the command line
)

// Origin is where a value was written, for messages: a flag, an environment variable, a
// key at a line of the config file, or the flag whose default it is.
type Origin struct {
	Layer   Layer
	Where   string // "--url", "$OPENAI_BASE_URL", "config F: line N: endpoints[0].url"
	WriteAs string // how to write a corrected value there: "--url ", "OPENAI_BASE_URL=", "url: "
}

// flagOrigin is a value given to (or defaulted by) --name.
func flagOrigin(layer Layer, name string) Origin {
	return Origin{Layer: layer, Where: "--" + name, WriteAs: "--" + name + " "}
}

// envOrigin is a value read from the environment variable name.
func envOrigin(name string) Origin { return Origin{Layer: Env, Where: "$" + name, WriteAs: name + "="} }

// Value is one setting as one layer holds it: V, when Set, written at From.
type Value[T any] struct {
	V    T
	Set  bool
	From Origin
}

// val is a Value set at from.
func val[T any](v T, from Origin) Value[T] { return Value[T]{V: v, Set: true, From: from} }

// into sets *dst to V when v is set.
func (v Value[T]) into(dst *T) {
	if v.Set {
		*dst = v.V
	}
}

// Given reports whether the value was given by a flag on the command line.
func (v Value[T]) Given() bool { return v.Set && v.From.Layer == Flag }

// above reports whether v was written in a higher layer than o (an unset value is
// below every layer).
func (v Value[T]) above(o ranked) bool {
	l, set := o.rank()
	return v.Set && (!set || v.From.Layer > l)
}

// ranked is a Value of any type, as above compares them.
type ranked interface{ rank() (Layer, bool) }

func (v Value[T]) rank() (Layer, bool) { return v.From.Layer, v.Set }

// over makes v the value of upper when upper is set: upper's layer is the higher one.
// A map (headers, an extra body) is merged key by key instead, upper's keys winning.
func (v *Value[T]) over(upper any) {
	u := upper.(Value[T])
	if !u.Set {
		return
	}
	lower, higher := reflect.ValueOf(v.V), reflect.ValueOf(u.V)
	if v.Set && lower.Kind() == reflect.Map && !lower.IsNil() {
		m := reflect.MakeMapWithSize(lower.Type(), lower.Len()+higher.Len())
		for _, src := range []reflect.Value{lower, higher} {
			for it := src.MapRange(); it.Next(); {
				m.SetMapIndex(it.Key(), it.Value())
			}
		}
		u.V = m.Interface().(T)
	}
	*v = u
}

// layered is a Value of any type, as Apply handles it.
type layered interface{ over(upper any) }

// Apply is base with every setting that upper sets taken from upper: the one rule of
// precedence, written once. S is Settings or one of its groups; Apply walks its fields
// (and those of the structs in it), replacing each Value that upper sets (merging maps,
// see Value.over). Fields that are not Values (an endpoint's Where) stay base's.
func Apply[S any](base, upper S) S {
	applyFields(reflect.ValueOf(&base).Elem(), reflect.ValueOf(&upper).Elem())
	return base
}

func applyFields(base, upper reflect.Value) {
	if base.Kind() != reflect.Struct {
		panic(fmt.Sprintf("settings.Apply: %s is not a struct", base.Type()))
	}
	for i := range base.NumField() {
		f := base.Field(i)
		if !f.CanSet() {
			continue
		}
		if l, ok := f.Addr().Interface().(layered); ok {
			l.over(upper.Field(i).Interface())
		} else if f.Kind() == reflect.Struct {
			applyFields(f, upper.Field(i))
		}
	}
}
