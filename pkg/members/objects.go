package members

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// ContextNamespace is the namespace m's kubeconfig context names, or
// "default", as kubectl resolves -n when it is not given.
func ContextNamespace(a Access, m Member) string {
	raw, err := a.RawConfig(m)
	if err == nil {
		if c, ok := raw.Contexts[m.ContextName()]; ok && c.Namespace != "" {
			return c.Namespace
		}
	}
	return "default"
}

func resourceFor(t typeconfig.Type) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: t.Group, Version: t.Version, Resource: t.Plural}
}

func dynamicClient(a Access, m Member) (dynamic.Interface, string, error) {
	cfg, err := a.RESTConfig(m)
	if err != nil {
		return nil, "", err
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, "", &ConfigError{Member: m.Name, Context: m.ContextName(), Source: "kubeconfig", Err: err}
	}
	return client, cfg.Host, nil
}

// GetObject reads one object of type t from m; namespace is ignored for
// cluster-scoped types.
func GetObject(ctx context.Context, a Access, m Member, t typeconfig.Type, namespace, name string) (*unstructured.Unstructured, error) {
	client, host, err := dynamicClient(a, m)
	if err != nil {
		return nil, err
	}
	var ri dynamic.ResourceInterface = client.Resource(resourceFor(t))
	if t.Namespaced() {
		ri = client.Resource(resourceFor(t)).Namespace(namespace)
	}
	obj, err := ri.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, explain(host, m, err)
	}
	return obj, nil
}

// ListObjects lists the objects of type t in namespace of m.
func ListObjects(ctx context.Context, a Access, m Member, t typeconfig.Type, namespace string) ([]unstructured.Unstructured, error) {
	client, host, err := dynamicClient(a, m)
	if err != nil {
		return nil, err
	}
	list, err := client.Resource(resourceFor(t)).Namespace(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, explain(host, m, err)
	}
	return list.Items, nil
}
