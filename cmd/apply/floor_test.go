package apply

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// floorInFlight is the physical floor's requests in flight per member.
const floorInFlight = 32

// floorApply is the physical floor of a cold apply (issue 11): a raw
// server-side-apply client that sends each rendered object of each member
// once, 32 requests in flight per member, all members at once, with no
// read, no bookkeeping and no client-side rate limit. The Namespaces go
// first (the rest cannot be created before them). Type mapping is done
// before the clock starts. rendered maps a member to its objects (YAML,
// as fedctl render writes them). It returns the wall time and the
// requests sent per member.
func floorApply(t *testing.T, e *testenv.Env, rendered map[string][]byte) (time.Duration, map[string]int) {
	t.Helper()
	type member struct {
		client     dynamic.Interface
		namespaces []*unstructured.Unstructured
		rest       []*unstructured.Unstructured
		resources  map[*unstructured.Unstructured]dynamic.ResourceInterface
	}
	ms := map[string]*member{}
	for cluster, data := range rendered {
		cfg, err := e.RESTConfig(cluster)
		require.NoError(t, err)
		cfg.RateLimiter = flowcontrol.NewFakeAlwaysRateLimiter()
		dyn, err := dynamic.NewForConfig(cfg)
		require.NoError(t, err)
		disco, err := discovery.NewDiscoveryClientForConfig(cfg)
		require.NoError(t, err)
		groups, err := restmapper.GetAPIGroupResources(disco)
		require.NoError(t, err)
		mapper := restmapper.NewDiscoveryRESTMapper(groups)
		m := &member{client: dyn, resources: map[*unstructured.Unstructured]dynamic.ResourceInterface{}}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			obj := &unstructured.Unstructured{}
			if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
				break
			} else {
				require.NoError(t, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			gvk := obj.GroupVersionKind()
			mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			require.NoError(t, err)
			var ri dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
			if obj.GetNamespace() != "" {
				ri = dyn.Resource(mapping.Resource).Namespace(obj.GetNamespace())
			}
			m.resources[obj] = ri
			if obj.GetKind() == "Namespace" {
				m.namespaces = append(m.namespaces, obj)
			} else {
				m.rest = append(m.rest, obj)
			}
		}
		ms[cluster] = m
	}
	requests := map[string]int{}
	var mu sync.Mutex
	var errs []error
	apply := func(m *member, objs []*unstructured.Unstructured) {
		sem := make(chan struct{}, floorInFlight)
		var wg sync.WaitGroup
		for _, obj := range objs {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				_, err := m.resources[obj].Apply(context.Background(), obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "floor", Force: true})
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	start := time.Now()
	var wg sync.WaitGroup
	for cluster, m := range ms {
		requests[cluster] = len(m.namespaces) + len(m.rest)
		wg.Go(func() {
			apply(m, m.namespaces)
			apply(m, m.rest)
		})
	}
	wg.Wait()
	wall := time.Since(start)
	require.NoError(t, errors.Join(errs...))
	return wall, requests
}
