package manifest

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode"
)

// What encoding/json does with Go types, for the fast path (see
// fastdecode.go): its indirect, and its struct fields by JSON name.

// indirect is encoding/json's indirect, unchanged: it walks down pointers
// and interfaces, allocating as needed, and stops at a json.Unmarshaler or
// encoding.TextUnmarshaler.
func indirect(v reflect.Value, decodingNull bool) (json.Unmarshaler, encoding.TextUnmarshaler, reflect.Value) {
	v0 := v
	haveAddr := false
	if v.Kind() != reflect.Pointer && v.Type().Name() != "" && v.CanAddr() {
		haveAddr = true
		v = v.Addr()
	}
	for {
		if v.Kind() == reflect.Interface && !v.IsNil() {
			e := v.Elem()
			if e.Kind() == reflect.Pointer && !e.IsNil() && (!decodingNull || e.Elem().Kind() == reflect.Pointer) {
				haveAddr = false
				v = e
				continue
			}
		}
		if v.Kind() != reflect.Pointer {
			break
		}
		if decodingNull && v.CanSet() {
			break
		}
		if v.Elem().Kind() == reflect.Interface && v.Elem().Elem().Equal(v) {
			v = v.Elem()
			break
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		if v.Type().NumMethod() > 0 && v.CanInterface() {
			if u, ok := reflect.TypeAssert[json.Unmarshaler](v); ok {
				return u, nil, reflect.Value{}
			}
			if !decodingNull {
				if u, ok := reflect.TypeAssert[encoding.TextUnmarshaler](v); ok {
					return nil, u, reflect.Value{}
				}
			}
		}
		if haveAddr {
			v = v0
			haveAddr = false
		} else {
			v = v.Elem()
		}
	}
	return nil, nil, v
}

// jsonField is a struct field as encoding/json decodes it.
type jsonField struct {
	index     []int
	quoted    bool // ",string"
	ambiguous bool // several fields claim the name; encoding/json picks by its dominance rules
}

var fieldCache sync.Map // reflect.Type -> map[string]jsonField

// fieldsOf returns the JSON fields of struct type t by name, found the way
// encoding/json's typeFields finds them. Where several fields share a name
// it marks the name ambiguous instead of applying Go's dominance rules.
func fieldsOf(t reflect.Type) map[string]jsonField {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]jsonField)
	}
	out := map[string]jsonField{}
	type level struct {
		typ   reflect.Type
		index []int
	}
	next := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := 0; i < l.typ.NumField(); i++ {
				sf := l.typ.Field(i)
				if sf.Anonymous {
					st := sf.Type
					if st.Kind() == reflect.Pointer {
						st = st.Elem()
					}
					if !sf.IsExported() && st.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !isValidTag(name) {
					name = ""
				}
				index := append(append([]int(nil), l.index...), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					if name == "" {
						name = sf.Name
					}
					f := jsonField{index: index, quoted: hasOption(opts, "string")}
					if _, dup := out[name]; dup {
						f.ambiguous = true
					}
					out[name] = f
					continue
				}
				next = append(next, level{typ: ft, index: index})
			}
		}
	}
	fieldCache.Store(t, out)
	return out
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// isValidTag is encoding/json's.
func isValidTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
