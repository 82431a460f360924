package overrides_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/overrides"
)

func rawOrMissing(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// FuzzApply checks that Apply and ApplyJSON never panic, whatever the object
// and the overrides, and that whenever Validate accepts the overrides,
// Apply agrees with json-patch v4 applied the way KubeFed did.
func FuzzApply(f *testing.F) {
	f.Add(`{"spec":{"replicas":1}}`, "", "/spec/replicas", "5", "add", "/spec/paused", "true")
	f.Add(`{"a":[1,2]}`, "add", "/a/-1", "3", "remove", "/a/0", "")
	f.Add(`{"a":null}`, "add", "/a", "null", "add", "/a/b", "1")
	f.Add(`{"a~b":{"c/d":[{}]}}`, "replace", "/a~0b/c~1d/0/x", `{"y":1.0}`, "replace", "/a~0b/c~1d/01", "[]")
	f.Add(`[]`, "move", "a/b", "{", "test", "", " ")
	f.Add(`{"x":1e400}`, "replace", "/x", "1e400", "copy", "/~2", `"s"`)
	f.Add(`{"a":{"\u2028":[1e21,-0,9007199254740993]}}`, "remove", "/a/\u2028/1", "", "add", "/a/\u2028/-", "12345678901234567890")
	f.Add("{\"k\xff\":\"v\"}", "replace", "/k\xff", `"\ud800"`, "add", "/a", "0x1F")
	f.Fuzz(func(t *testing.T, doc, op1, path1, value1, op2, path2, value2 string) {
		items := []federation.Override{
			{Op: op1, Path: path1, Value: rawOrMissing(value1)},
			{Op: op2, Path: path2, Value: rawOrMissing(value2)},
		}
		ovs := []federation.ClusterOverrides{
			{ClusterName: "us-1", ClusterOverrides: items[1:]},
			{ClusterName: "eu-1", ClusterOverrides: items},
		}
		var obj map[string]any
		if utiljson.Unmarshal([]byte(doc), &obj) != nil {
			obj = nil
		}

		got, err := overrides.Apply(obj, "eu-1", ovs)
		if err == nil {
			if _, merr := json.Marshal(got); merr != nil {
				t.Fatalf("the result cannot be encoded: %v", merr)
			}
		}
		_, _ = overrides.ApplyJSON([]byte(doc), "eu-1", ovs)

		if obj == nil {
			return
		}
		encoded, merr := json.Marshal(obj)
		if merr != nil {
			return
		}
		gotJSON, errJSON := overrides.ApplyJSON(encoded, "eu-1", ovs)
		if (err == nil) != (errJSON == nil) {
			t.Fatalf("Apply and ApplyJSON disagree: %v, %v", err, errJSON)
		}
		if err == nil {
			var decoded map[string]any
			if derr := utiljson.Unmarshal(gotJSON, &decoded); derr != nil || mustJSON(decoded) != mustJSON(got) {
				t.Fatalf("ApplyJSON gives %s, Apply gives %s", gotJSON, mustJSON(got))
			}
		}

		if overrides.Validate(ovs) != nil {
			return
		}
		for _, it := range items {
			if len(it.Value) > 0 && !json.Valid(it.Value) {
				// No such value reaches Apply: fedctl's decoder writes
				// values as JSON, and KubeFed's API server refused them.
				// (A remove ignores its value; the model of KubeFed
				// below would fail decoding it.) Apply must only not
				// panic, checked above.
				return
			}
		}
		// KubeFed decoded values with encoding/json, which rounds integers
		// beyond 2^53; decode like fedctl to compare the patching alone.
		want, wantErr := kubefedApply(obj, items, utiljson.Unmarshal)
		if (wantErr == nil) != (err == nil) {
			t.Fatalf("v4 error %v, Apply error %v", wantErr, err)
		}
		if err == nil && mustJSON(want) != mustJSON(got) {
			t.Fatalf("v4 gives %s, Apply gives %s", mustJSON(want), mustJSON(got))
		}
	})
}

// FuzzValidate checks that Validate never panics, that every problem it
// reports is a *FieldError in spec.overrides, and that whatever it accepts
// Apply accepts too: Apply may then only fail where json-patch does.
func FuzzValidate(f *testing.F) {
	f.Add(`[{"clusterName":"eu-1","clusterOverrides":[{"path":"/spec/replicas","value":1}]}]`)
	f.Add(`[{"clusterName":"eu-1","clusterOverrides":[{"op":"add","path":"/a/b","value":1},{"op":"remove","path":"/a/0"}]}]`)
	f.Add(`[{"clusterName":"a"},{"clusterName":"a","clusterOverrides":[{"op":"move","path":"x~"},{"path":"/kind"}]}]`)
	f.Add(`[{"clusterName":"","clusterOverrides":[{"op":"replace","path":"/x","value":null},{"op":"add","path":"/x/0"}]}]`)
	f.Fuzz(func(t *testing.T, text string) {
		var ovs []federation.ClusterOverrides
		if json.Unmarshal([]byte(text), &ovs) != nil {
			return
		}
		err := overrides.Validate(ovs)
		if err != nil {
			joined, ok := err.(interface{ Unwrap() []error })
			if !ok {
				t.Fatalf("Validate does not join its problems: %v", err)
			}
			for _, e := range joined.Unwrap() {
				var fe *overrides.FieldError
				if !errors.As(e, &fe) || !strings.HasPrefix(fe.Field, "spec.overrides[") {
					t.Fatalf("problem is not a *FieldError in spec.overrides: %v", e)
				}
			}
			return
		}
		for _, entry := range ovs {
			_, err := overrides.ApplyJSON([]byte(`{"a":[{"b":1}]}`), entry.ClusterName, ovs)
			if err == nil {
				continue
			}
			var ae *overrides.ApplyError
			if !errors.As(err, &ae) || ae.Op == "" {
				t.Fatalf("Apply rejects what Validate accepts: %v", err)
			}
			if !errors.Is(err, jsonpatch.ErrMissing) && !errors.Is(err, jsonpatch.ErrInvalidIndex) &&
				!errors.Is(err, strconv.ErrSyntax) && !errors.Is(err, strconv.ErrRange) {
				t.Fatalf("Apply fails other than json-patch does: %v", err)
			}
		}
	})
}
