package karmada

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// podSpecPaths are where image, command and args overriders find the
// containers, by kind; other kinds (CronJob, custom resources) are left
// alone, silently, as Karmada leaves them
// (pkg/util/overridemanager/imageoverride.go and commandargsoverride.go).
// Only containers are touched, never initContainers (karmada#4283).
var podSpecPaths = map[string]string{
	"Pod":         "/spec",
	"ReplicaSet":  "/spec/template/spec",
	"Deployment":  "/spec/template/spec",
	"DaemonSet":   "/spec/template/spec",
	"StatefulSet": "/spec/template/spec",
	"Job":         "/spec/template/spec",
}

// applier applies overriders to one member's copy of an object, in
// Karmada's order, and keeps the operations it applied.
type applier struct {
	obj  map[string]any
	kind string
	ops  []op
}

// run applies one patch (the operations one overrider entry made) in
// order; like Karmada's applyJSONPatch it fails as a whole.
func (a *applier) run(ops []op) error {
	doc := any(a.obj)
	for i, o := range ops {
		var err error
		if m, ok := doc.(map[string]any); ok {
			_, ops[i].existed = lookup(m, o.Path)
		}
		doc, err = applyOp(doc, o)
		if err != nil {
			return fmt.Errorf("%s: %s %s: %w", o.Source, o.Op, o.Path, err)
		}
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: the object is no longer an object", ops[len(ops)-1].Source)
	}
	a.obj = m
	a.ops = append(a.ops, ops...)
	return nil
}

// overriders applies one rule's overriders in Karmada's fixed order
// (pkg/util/overridemanager/overridemanager.go, applyPolicyOverriders):
// image, command, args, labels, annotations, field, then plaintext as one
// patch. Each entry sees the result of the one before.
func (a *applier) overriders(o overriders, source string) error {
	for i, io := range o.ImageOverrider {
		ops, err := a.imageOps(io, fmt.Sprintf("%s imageOverrider[%d]", source, i))
		if err != nil {
			return err
		}
		if err := a.runIf(ops); err != nil {
			return err
		}
	}
	for _, ca := range []struct {
		field string
		list  []commandArgsOverrider
	}{{"command", o.CommandOverrider}, {"args", o.ArgsOverrider}} {
		for i, c := range ca.list {
			ops := a.commandArgsOps(ca.field, c, fmt.Sprintf("%s %sOverrider[%d]", source, ca.field, i))
			if err := a.runIf(ops); err != nil {
				return err
			}
		}
	}
	for _, la := range []struct {
		field, name string
		list        []labelAnnotationOverrider
	}{{"labels", "labelsOverrider", o.LabelsOverrider}, {"annotations", "annotationsOverrider", o.AnnotationsOverrider}} {
		for i, l := range la.list {
			ops := a.labelAnnotationOps(la.field, l, fmt.Sprintf("%s %s[%d]", source, la.name, i))
			if err := a.runIf(ops); err != nil {
				return err
			}
		}
	}
	for i, f := range o.FieldOverrider {
		ops, err := a.fieldOps(f, fmt.Sprintf("%s fieldOverrider[%d]", source, i))
		if err != nil {
			return err
		}
		if err := a.runIf(ops); err != nil {
			return err
		}
	}
	var plain []op
	for i, p := range o.Plaintext {
		var v any
		if len(p.Value) > 0 {
			if err := json.Unmarshal(p.Value, &v); err != nil {
				return fmt.Errorf("%s plaintext[%d]: value: %w", source, i, err)
			}
		}
		plain = append(plain, op{Op: p.Operator, Path: p.Path, Value: v, Source: fmt.Sprintf("%s plaintext[%d]", source, i)})
	}
	return a.runIf(plain)
}

func (a *applier) runIf(ops []op) error {
	if len(ops) == 0 {
		return nil
	}
	return a.run(ops)
}

// containers are the object's containers and the path to them, or nil for
// a kind the overriders leave alone.
func (a *applier) containers() ([]any, string) {
	prefix, ok := podSpecPaths[a.kind]
	if !ok {
		return nil, ""
	}
	v, ok := lookup(a.obj, prefix+"/containers")
	list, _ := v.([]any)
	if !ok {
		return nil, prefix + "/containers"
	}
	return list, prefix + "/containers"
}

// imageOps is Karmada's buildPatches: without a predicate, a replace of
// every container's image for the kinds above; with one, a replace at the
// predicate's path, which must lead to a string.
func (a *applier) imageOps(io imageOverrider, source string) ([]op, error) {
	if io.Predicate != nil {
		cur, err := predicateValue(a.obj, io.Predicate.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: predicate path %s: %w", source, io.Predicate.Path, err)
		}
		return a.imageOp(io, io.Predicate.Path, cur, source)
	}
	list, path := a.containers()
	var ops []op
	for i, c := range list {
		m, _ := c.(map[string]any)
		cur, _ := m["image"].(string)
		o, err := a.imageOp(io, fmt.Sprintf("%s/%d/image", path, i), cur, source)
		if err != nil {
			return nil, err
		}
		ops = append(ops, o...)
	}
	return ops, nil
}

func (a *applier) imageOp(io imageOverrider, path, cur, source string) ([]op, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("%s: imagePath should be start with / character", source)
	}
	img, err := parseImage(cur)
	if err != nil {
		return nil, fmt.Errorf("%s: failed to parse image value(%s), error: %v", source, cur, err)
	}
	next, err := img.override(io.Component, io.Operator, io.Value)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	return []op{{Op: "replace", Path: path, Value: next, Source: source}}, nil
}

// predicateValue is Karmada's obtainImageValue: the path is trimmed of
// slashes and split on them, without JSON-pointer unescaping; an array
// step takes the next segment as its index.
func predicateValue(obj map[string]any, path string) (string, error) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	cur := obj
	for i := 0; i < len(segs)-1; i++ {
		switch v := cur[segs[i]].(type) {
		case map[string]any:
			cur = v
		case []any:
			n, err := strconv.ParseInt(segs[i+1], 10, 32)
			if err != nil {
				return "", fmt.Errorf("path(%s) of rawObj's is not number", segs[i+1])
			}
			if n < 0 || int(n) >= len(v) {
				return "", fmt.Errorf("index %d is out of range (%d items)", n, len(v))
			}
			m, ok := v[n].(map[string]any)
			if !ok {
				return "", fmt.Errorf("item %d of %s is not an object", n, segs[i])
			}
			cur = m
			i++
		default:
			return "", fmt.Errorf("path(%s) of rawObj's type is not map[string]interface{} and []interface{}", segs[i])
		}
	}
	s, ok := cur[segs[len(segs)-1]].(string)
	if !ok {
		return "", fmt.Errorf("failed to convert path(%s) to string", segs[len(segs)-1])
	}
	return s, nil
}

// commandArgsOps is Karmada's buildCommandArgsPatches: for every container
// named containerName, add appends the values and remove drops every
// occurrence of each; a container without the field gets it added (so a
// remove there writes an empty list). Other operators change nothing.
func (a *applier) commandArgsOps(field string, c commandArgsOverrider, source string) []op {
	list, path := a.containers()
	var ops []op
	for i, item := range list {
		m, _ := item.(map[string]any)
		if m == nil || m["name"] != c.ContainerName {
			continue
		}
		var cur []string
		verb := "add"
		if existing, ok := m[field].([]any); ok && m[field] != nil {
			verb = "replace"
			for _, v := range existing {
				cur = append(cur, fmt.Sprintf("%s", v))
			}
		} else if m[field] != nil {
			verb = "replace"
		}
		next := []string{}
		switch c.Operator {
		case "add":
			next = append(append(next, cur...), c.Value...)
		case "remove":
			drop := map[string]bool{}
			for _, v := range c.Value {
				drop[v] = true
			}
			for _, v := range cur {
				if !drop[v] {
					next = append(next, v)
				}
			}
		default:
			next = append(next, cur...)
		}
		ops = append(ops, op{Op: verb, Path: fmt.Sprintf("%s/%d/%s", path, i, field), Value: deepCopy(next), Source: source})
	}
	return ops
}

// labelAnnotationOps is Karmada's buildLabelAnnotationOverriderPatches on
// the object's own labels or annotations: add creates the map when it is
// missing and sets each key; replace and remove touch only keys that are
// there. Keys are taken in sorted order (Karmada ranges over a map; the
// result is the same).
func (a *applier) labelAnnotationOps(field string, l labelAnnotationOverrider, source string) []op {
	meta, _ := a.obj["metadata"].(map[string]any)
	current, _ := meta[field].(map[string]any)
	var ops []op
	for _, key := range sortedNames(l.Value) {
		switch l.Operator {
		case "remove", "replace":
			if _, ok := current[key]; !ok {
				continue
			}
		case "add":
			if current == nil { // Karmada creates the map first (SetNestedStringMap)
				if meta == nil {
					ops = append(ops, op{Op: "add", Path: "/metadata", Value: map[string]any{}, Source: source})
					meta = map[string]any{}
				}
				ops = append(ops, op{Op: "add", Path: "/metadata/" + field, Value: map[string]any{}, Source: source})
				current = map[string]any{}
			}
		}
		o := op{Op: l.Operator, Path: "/metadata/" + field + "/" + strings.ReplaceAll(key, "/", "~1"), Source: source}
		if l.Operator != "remove" {
			o.Value = l.Value[key]
		}
		ops = append(ops, o)
	}
	return ops
}

// fieldOps is Karmada's applyFieldOverriders for one entry: the string at
// fieldPath is parsed as YAML or JSON, patched with the entry's
// operations (the same strict semantics), and written back as a string: a
// replace of fieldPath. YAML comes back as sigs.k8s.io/yaml writes it
// (keys sorted, comments gone), JSON compact.
func (a *applier) fieldOps(f fieldOverrider, source string) ([]op, error) {
	cur, ok := lookup(a.obj, f.FieldPath)
	if !ok {
		return nil, fmt.Errorf("%s: fieldPath %s: not found", source, f.FieldPath)
	}
	text, ok := cur.(string)
	if !ok {
		return nil, fmt.Errorf("%s: Get object's value by overrider's path(%s) is not string", source, f.FieldPath)
	}
	patches, isYAML := f.JSON, false
	data := []byte(text)
	if len(f.YAML) > 0 {
		patches, isYAML = f.YAML, true
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %s is not YAML: %v", source, f.FieldPath, err)
		}
		data = j
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %s is not JSON: %v", source, f.FieldPath, err)
	}
	for i, p := range patches {
		var v any
		if len(p.Value) > 0 {
			if err := json.Unmarshal(p.Value, &v); err != nil {
				return nil, fmt.Errorf("%s[%d]: value: %v", source, i, err)
			}
		}
		var err error
		doc, err = applyOp(doc, op{Op: p.Operator, Path: p.SubPath, Value: v})
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s in %s: %v", source, p.Operator, p.SubPath, f.FieldPath, err)
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	if isYAML {
		if out, err = yaml.JSONToYAML(out); err != nil {
			return nil, fmt.Errorf("%s: %v", source, err)
		}
	}
	return []op{{Op: "replace", Path: f.FieldPath, Value: string(out), Source: source}}, nil
}

// lookup is the value at a JSON pointer.
func lookup(obj map[string]any, pointer string) (any, bool) {
	if pointer == "" {
		return obj, true
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, false
	}
	var cur any = obj
	for _, t := range strings.Split(pointer[1:], "/") {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		next, ok := child(cur, t)
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}
