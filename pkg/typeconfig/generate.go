package typeconfig

import (
	"bytes"
	"encoding/json"
	"fmt"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// What kubefedctl enable generates by default (its --federated-group,
// --federated-version and --kubefed-namespace). fedctl reads federated
// objects of this group; pkg/federation.TypesGroup is the same string.
const (
	FederatedGroup   = "types.kubefed.io"
	FederatedVersion = "v1beta1"
	KubeFedNamespace = "kube-federation-system"

	// TypeConfigAPIVersion and TypeConfigKind identify a
	// FederatedTypeConfig.
	TypeConfigAPIVersion = "core.kubefed.io/v1beta1"
	TypeConfigKind       = "FederatedTypeConfig"

	// PropagationEnabled is the FederatedTypeConfig's spec.propagation of
	// an enabled type.
	PropagationEnabled = "Enabled"
)

// FederatedTypeConfig is KubeFed's FederatedTypeConfig
// (pkg/apis/core/v1beta1/federatedtypeconfig_types.go), with the fields
// kubefedctl enable sets.
type FederatedTypeConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              FederatedTypeConfigSpec `json:"spec"`
}

// FederatedTypeConfigSpec is the spec of a FederatedTypeConfig.
type FederatedTypeConfigSpec struct {
	TargetType    APIResource `json:"targetType"`
	Propagation   string      `json:"propagation"`
	FederatedType APIResource `json:"federatedType"`
}

// APIResource is a FederatedTypeConfig's description of a type.
type APIResource struct {
	Group      string `json:"group,omitempty"`
	Version    string `json:"version"`
	Kind       string `json:"kind"`
	PluralName string `json:"pluralName"`
	Scope      Scope  `json:"scope"`
}

// FederatedScope is the scope of t's federated type: t's own scope, except
// that FederatedNamespace is namespaced although a Namespace is not (KubeFed
// places a namespace's federated objects inside it).
func (t Type) FederatedScope() Scope {
	if t.Group == "" && t.Plural == "namespaces" {
		return Namespaced
	}
	return t.Scope
}

// FederatedPlural is the plural of t's federated type: federated<plural>.
func (t Type) FederatedPlural() string { return "federated" + t.Plural }

// TypeConfig returns the FederatedTypeConfig that kubefedctl enable creates
// for t (GenerateTypeConfigForTarget), named like t in KubeFed's namespace.
func TypeConfig(t Type) *FederatedTypeConfig {
	return &FederatedTypeConfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: TypeConfigAPIVersion, Kind: TypeConfigKind},
		ObjectMeta: metav1.ObjectMeta{Name: t.Name(), Namespace: KubeFedNamespace},
		Spec: FederatedTypeConfigSpec{
			TargetType:  APIResource{Group: t.Group, Version: t.Version, Kind: t.Kind, PluralName: t.Plural, Scope: t.Scope},
			Propagation: PropagationEnabled,
			FederatedType: APIResource{
				Group: FederatedGroup, Version: FederatedVersion,
				Kind: t.FederatedKind(), PluralName: t.FederatedPlural(), Scope: t.FederatedScope(),
			},
		},
	}
}

// CRD returns the CustomResourceDefinition of r's federated type, as
// kubefedctl enable generates it (CrdForAPIResource with
// federatedTypeValidationSchema): federated<plural>.types.kubefed.io, one
// version v1beta1 (served, storage, status subresource), the short names
// f<short> for each of r's short names, and a schema that requires spec,
// keeps spec.template as it is, and describes placement, overrides and the
// propagation status. retainReplicas says whether the target type has an
// integer spec.replicas; only then does spec have retainReplicas.
//
// One deliberate difference: kubefedctl leaves spec.template out when the
// target's schema has no top-level properties, and the API server then
// prunes every template; fedctl always declares it.
func CRD(r Resource, retainReplicas bool) *apiextv1.CustomResourceDefinition {
	t := r.Type
	var shortNames []string
	for _, s := range r.ShortNames {
		shortNames = append(shortNames, "f"+s)
	}
	scope := apiextv1.ClusterScoped
	if t.FederatedScope() == Namespaced {
		scope = apiextv1.NamespaceScoped
	}
	return &apiextv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: t.FederatedPlural() + "." + FederatedGroup},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: FederatedGroup,
			Names: apiextv1.CustomResourceDefinitionNames{
				Plural:     t.FederatedPlural(),
				Kind:       t.FederatedKind(),
				ShortNames: shortNames,
			},
			Scope: scope,
			Versions: []apiextv1.CustomResourceDefinitionVersion{{
				Name:         FederatedVersion,
				Served:       true,
				Storage:      true,
				Schema:       &apiextv1.CustomResourceValidation{OpenAPIV3Schema: federatedSchema(retainReplicas)},
				Subresources: &apiextv1.CustomResourceSubresources{Status: &apiextv1.CustomResourceSubresourceStatus{}},
			}},
		},
	}
}

// federatedSchema is kubefedctl's federatedTypeValidationSchema.
func federatedSchema(retainReplicas bool) *apiextv1.JSONSchemaProps {
	preserve := true
	str := apiextv1.JSONSchemaProps{Type: "string"}
	arrayOf := func(item apiextv1.JSONSchemaProps) apiextv1.JSONSchemaProps {
		return apiextv1.JSONSchemaProps{Type: "array", Items: &apiextv1.JSONSchemaPropsOrArray{Schema: &item}}
	}
	object := func(required []string, props map[string]apiextv1.JSONSchemaProps) apiextv1.JSONSchemaProps {
		return apiextv1.JSONSchemaProps{Type: "object", Properties: props, Required: required}
	}
	dateTime := apiextv1.JSONSchemaProps{Type: "string", Format: "date-time"}

	spec := object(nil, map[string]apiextv1.JSONSchemaProps{
		// Supporting any target type precludes validating the template;
		// the member cluster validates it when it is applied.
		"template": {Type: "object", XPreserveUnknownFields: &preserve},
		"placement": object(nil, map[string]apiextv1.JSONSchemaProps{
			// When clusters is set, clusterSelector is ignored.
			"clusters": arrayOf(object([]string{"name"}, map[string]apiextv1.JSONSchemaProps{"name": str})),
			"clusterSelector": object(nil, map[string]apiextv1.JSONSchemaProps{
				"matchExpressions": arrayOf(object([]string{"key", "operator"}, map[string]apiextv1.JSONSchemaProps{
					"key":      str,
					"operator": str,
					"values":   arrayOf(str),
				})),
				"matchLabels": {Type: "object", AdditionalProperties: &apiextv1.JSONSchemaPropsOrBool{Allows: true, Schema: &str}},
			}),
		}),
		"overrides": arrayOf(object(nil, map[string]apiextv1.JSONSchemaProps{
			"clusterName": str,
			"clusterOverrides": arrayOf(object([]string{"path"}, map[string]apiextv1.JSONSchemaProps{
				"op":   {Type: "string", Pattern: "^(add|remove|replace)?$"},
				"path": str,
				// An override may set any field, so its value cannot be
				// validated up front; errors surface when it is applied.
				"value": {XPreserveUnknownFields: &preserve},
			})),
		})),
	})
	if retainReplicas {
		// For types whose replicas an HorizontalPodAutoscaler may own.
		spec.Properties["retainReplicas"] = apiextv1.JSONSchemaProps{Type: "boolean"}
	}

	return &apiextv1.JSONSchemaProps{
		Type: "object",
		// A spec, even empty, is required as an aid to people writing
		// federated ConfigMaps and Secrets by hand: their targets have no
		// spec, and a federated object without one is likely malformed.
		Required: []string{"spec"},
		Properties: map[string]apiextv1.JSONSchemaProps{
			"apiVersion": str,
			"kind":       str,
			"metadata":   {Type: "object"},
			"spec":       spec,
			"status": object(nil, map[string]apiextv1.JSONSchemaProps{
				"conditions": arrayOf(object([]string{"type", "status"}, map[string]apiextv1.JSONSchemaProps{
					"type":               str,
					"status":             str,
					"reason":             str,
					"lastUpdateTime":     dateTime,
					"lastTransitionTime": dateTime,
				})),
				"clusters": arrayOf(object([]string{"name"}, map[string]apiextv1.JSONSchemaProps{
					"name":         str,
					"status":       str,
					"remoteStatus": {Type: "object", XPreserveUnknownFields: &preserve},
				})),
				"observedGeneration": {Type: "integer", Format: "int64"},
			}),
		},
	}
}

// Manifests returns the FederatedTypeConfig and the CRD that kubefedctl
// enable -o yaml prints for r, as YAML documents each introduced by "---",
// keys sorted, without status or creationTimestamp; the same input always
// gives the same bytes.
func Manifests(r Resource, retainReplicas bool) ([]byte, error) {
	var buf bytes.Buffer
	for _, obj := range []any{TypeConfig(r.Type), CRD(r, retainReplicas)} {
		doc, err := encodeManifest(obj)
		if err != nil {
			return nil, err
		}
		buf.WriteString("---\n")
		buf.Write(doc)
	}
	return buf.Bytes(), nil
}

// encodeManifest is kubefedctl's WriteUnstructuredToYaml: through a generic
// map, so that status and metadata.creationTimestamp, which the typed
// objects always carry, can be dropped, then sorted YAML.
func encodeManifest(obj any) ([]byte, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", obj, err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("encode %T: %w", obj, err)
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", obj, err)
	}
	return out, nil
}
