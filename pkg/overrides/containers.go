package overrides

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/fedctl/fedctl/pkg/federation"
)

// podSpecPath is where the pod spec of an object of kind is, as a JSON
// pointer: the kinds whose containers typed overrides reach (those of
// Karmada's image, command and args overriders, and CronJob's nested
// template, which Karmada's leave untouched).
func podSpecPath(kind string) (string, bool) {
	switch kind {
	case "Pod":
		return "/spec", true
	case "CronJob":
		return "/spec/jobTemplate/spec/template/spec", true
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "ReplicationController":
		return "/spec/template/spec", true
	}
	return "", false
}

// mergedContainer is the typed overrides of one container, merged over the
// entries that apply to a member in list order: a later entry's field, env
// variable or quantity wins.
type mergedContainer struct {
	name      string
	first     string // field of the first override naming it, for "not found"
	image     string // the whole reference, or
	tag       string // only the tag; the later of the two wins
	imageFrom string
	command   []string
	args      []string
	cmdFrom   string
	argsFrom  string
	env       []federation.EnvVar
	envFrom   string
	limits    map[string]string
	requests  map[string]string
	resFrom   string
}

func containerField(i, k int) string { return fmt.Sprintf("spec.overrides[%d].containers[%d]", i, k) }

// containerOps compiles the typed container overrides of the entries that
// apply to a member into JSON-patch operations on obj, which go before the
// entries' JSON patches (as Karmada's overriders go before its plaintext):
// one replace per overridden field, the env and resources of a container as
// whole merged values.
func containerOps(obj map[string]any, ovs []federation.ClusterOverrides, entries []int) ([]operation, error) {
	var merged []*mergedContainer
	byName := map[string]*mergedContainer{}
	for _, i := range entries {
		for k, co := range ovs[i].Containers {
			field := containerField(i, k)
			mc := byName[co.Name]
			if mc == nil {
				mc = &mergedContainer{name: co.Name, first: field}
				byName[co.Name] = mc
				merged = append(merged, mc)
			}
			switch {
			case co.Image != "":
				mc.image, mc.tag, mc.imageFrom = co.Image, "", field+".image"
			case co.Tag != "":
				mc.image, mc.tag, mc.imageFrom = "", co.Tag, field+".tag"
			}
			if co.Command != nil {
				mc.command, mc.cmdFrom = co.Command, field+".command"
			}
			if co.Args != nil {
				mc.args, mc.argsFrom = co.Args, field+".args"
			}
			for _, v := range co.Env {
				if j := slices.IndexFunc(mc.env, func(e federation.EnvVar) bool { return e.Name == v.Name }); j >= 0 {
					mc.env[j] = v
				} else {
					mc.env = append(mc.env, v)
				}
				mc.envFrom = field + ".env"
			}
			if r := co.Resources; r != nil {
				mc.limits, mc.requests = setAll(mc.limits, r.Limits), setAll(mc.requests, r.Requests)
				mc.resFrom = field + ".resources"
			}
		}
	}
	if len(merged) == 0 {
		return nil, nil
	}
	kind, _ := obj["kind"].(string)
	podPath, ok := podSpecPath(kind)
	if !ok {
		return nil, &FieldError{Field: merged[0].first, Err: fmt.Errorf("a %s has no pod template; typed container overrides apply to Pods, Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs and ReplicationControllers", kind)}
	}
	podSpec, _ := valueAt(obj, podPath, false)
	var ops []operation
	for _, mc := range merged {
		path, current, err := findContainer(podSpec, podPath, mc.name)
		if err != nil {
			return nil, &FieldError{Field: mc.first + ".name", Err: err}
		}
		add := func(field, key string, v any) {
			data, _ := json.Marshal(v) // strings, lists and maps of strings
			ops = append(ops, operation{op: OpReplace, path: path + "/" + key, value: data, entry: -1, item: -1, field: field})
		}
		switch {
		case mc.image != "":
			add(mc.imageFrom, "image", mc.image)
		case mc.tag != "":
			cur, _ := current["image"].(string)
			add(mc.imageFrom, "image", withTag(cur, mc.tag))
		}
		if mc.command != nil {
			add(mc.cmdFrom, "command", mc.command)
		}
		if mc.args != nil {
			add(mc.argsFrom, "args", mc.args)
		}
		if len(mc.env) > 0 {
			add(mc.envFrom, "env", mergeEnv(current["env"], mc.env))
		}
		if mc.limits != nil || mc.requests != nil {
			add(mc.resFrom, "resources", mergeResources(current["resources"], mc.limits, mc.requests))
		}
	}
	return ops, nil
}

func setAll(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]string{}
	}
	for k, v := range src {
		dst[k] = v
	}
	return dst
}

// findContainer finds the container name among the pod spec's containers,
// then its initContainers.
func findContainer(podSpec any, podPath, name string) (string, map[string]any, error) {
	spec, _ := podSpec.(map[string]any)
	var names []string
	for _, list := range []string{"containers", "initContainers"} {
		items, _ := spec[list].([]any)
		for j, it := range items {
			c, _ := it.(map[string]any)
			n, _ := c["name"].(string)
			if n == name {
				return podPath + "/" + list + "/" + strconv.Itoa(j), c, nil
			}
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "", nil, fmt.Errorf("no container %q: the pod template has no containers", name)
	}
	return "", nil, fmt.Errorf("no container or init container %q in the pod template (it has %s)", name, strings.Join(names, ", "))
}

// withTag replaces the tag of an image reference, keeping its registry
// (with a port), repository and digest: registry:5000/app:1@sha256:x with
// tag 2 is registry:5000/app:2@sha256:x. (Karmada's tag overrider drops
// the digest; fedctl keeps it, and the digest still decides what runs.)
func withTag(image, tag string) string {
	ref, digest, hasDigest := strings.Cut(image, "@")
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref = ref[:i]
	}
	ref += ":" + tag
	if hasDigest {
		ref += "@" + digest
	}
	return ref
}

// mergeEnv sets each variable of set in the container's env by name: in
// place where it is, appended otherwise.
func mergeEnv(current any, set []federation.EnvVar) []any {
	list, _ := current.([]any)
	out := slices.Clone(list)
	for _, v := range set {
		entry := map[string]any{"name": v.Name}
		if v.ValueFrom != nil {
			entry["valueFrom"] = v.ValueFrom
		} else {
			entry["value"] = v.Value
		}
		j := slices.IndexFunc(out, func(e any) bool {
			m, _ := e.(map[string]any)
			return m["name"] == v.Name
		})
		if j >= 0 {
			out[j] = entry
		} else {
			out = append(out, entry)
		}
	}
	return out
}

// mergeResources sets each quantity of limits and requests by key.
func mergeResources(current any, limits, requests map[string]string) map[string]any {
	cur, _ := current.(map[string]any)
	out := map[string]any{}
	for k, v := range cur {
		out[k] = v
	}
	for key, set := range map[string]map[string]string{"limits": limits, "requests": requests} {
		if len(set) == 0 {
			continue
		}
		m := map[string]any{}
		if old, ok := out[key].(map[string]any); ok {
			for k, v := range old {
				m[k] = v
			}
		}
		for k, v := range set {
			m[k] = v
		}
		out[key] = m
	}
	return out
}

// validateContainers checks an entry's typed container overrides.
func validateContainers(i int, cos []federation.ContainerOverride) []error {
	var errs []error
	seen := map[string]int{}
	for k, co := range cos {
		field := containerField(i, k)
		if co.Name == "" {
			errs = append(errs, &FieldError{Field: field + ".name", Err: errors.New("is required: the container (or init container) to override")})
		} else if j, dup := seen[co.Name]; dup {
			errs = append(errs, &FieldError{Field: field + ".name", Err: fmt.Errorf("container %q appears more than once (also %s)", co.Name, containerField(i, j))})
		} else {
			seen[co.Name] = k
		}
		if co.Image != "" && co.Tag != "" {
			errs = append(errs, &FieldError{Field: field + ".tag", Err: errors.New("give image (the whole reference) or tag (only the tag), not both")})
		}
		if strings.ContainsAny(co.Tag, ":/@") {
			errs = append(errs, &FieldError{Field: field + ".tag", Err: fmt.Errorf("%q is not a tag: give only what follows the colon, e.g. 1.27", co.Tag)})
		}
		names := map[string]bool{}
		for e, v := range co.Env {
			switch {
			case v.Name == "":
				errs = append(errs, &FieldError{Field: fmt.Sprintf("%s.env[%d].name", field, e), Err: errors.New("is required")})
			case names[v.Name]:
				errs = append(errs, &FieldError{Field: fmt.Sprintf("%s.env[%d].name", field, e), Err: fmt.Errorf("variable %q appears more than once", v.Name)})
			case v.Value != "" && v.ValueFrom != nil:
				errs = append(errs, &FieldError{Field: fmt.Sprintf("%s.env[%d]", field, e), Err: errors.New("give value or valueFrom, not both")})
			}
			names[v.Name] = true
		}
		if r := co.Resources; r != nil {
			for _, kv := range []struct {
				key string
				set map[string]string
			}{{"limits", r.Limits}, {"requests", r.Requests}} {
				key, set := kv.key, kv.set
				for _, name := range slices.Sorted(maps.Keys(set)) {
					if _, err := resource.ParseQuantity(set[name]); err != nil {
						errs = append(errs, &FieldError{Field: fmt.Sprintf("%s.resources.%s.%s", field, key, name), Err: fmt.Errorf("%q is not a quantity: %v", set[name], err)})
					}
				}
			}
		}
	}
	return errs
}
