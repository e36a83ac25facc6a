// Command argocd-gc sets Argo CD's resource tracking on a bundle and later runs the cascade deletion
// of its Application the way Argo CD's application controller does, with Argo CD's own code:
// github.com/argoproj/argo-cd/v3 at the version pinned in go.mod (v3.2.6) and the gitops-engine it
// requires.
//
//	argocd-gc track  -application APP.yaml < objects.json > tracked.json
//	argocd-gc delete -kubeconfig K -application APP.yaml
//
// track: reads a JSON array of objects and sets, on each but CRDs, the tracking Argo CD's repo
// server writes on the manifests it generates (reposerver/repository/repository.go:1586-1591):
// util/argo NewResourceTracking().SetAppInstance with the tracking method Argo CD v3 uses when
// argocd-cm sets none (annotation: util/settings SettingsManager.GetTrackingMethod), the app
// instance name of Application.InstanceName and the Application's destination namespace. It
// writes the array back. The controller's normalizeClusterScopeTracking (controller/state.go:440,
// unexported) re-tracks only cluster-scoped objects that carry a namespace, and refuses none: it
// is not run, and the caller's objects must not be such. Applying the result (server-side, as Argo
// CD syncs with ServerSideApply=true) is the caller's.
//
// delete: what controller/appcontroller.go finalizeApplicationDeletion does for an Application with
// a resources finalizer, on each reconcile, until no object to delete is left:
//   - the managed live objects: every live root object (no owner references) whose tracking names
//     the Application (util/argo GetAppName == Application.InstanceName, as controller/cache
//     populates ResourceInfo.AppName and filters in GetManagedLiveObjs);
//   - while any of them has a deletionTimestamp, wait (the controller returns and reconciles later);
//   - else keep those for which shouldBeDeleted holds (composed below from Argo CD's exported
//     pieces, the one unexported line copied), order them with controller.FilterObjectsForDeletion
//     and delete that batch with gitops-engine's kubectl DeleteResource (util/kube NewKubectl) and
//     kube.RunAllAsync, with the propagation policy Application.GetPropagationPolicy selects.
//
// It prints JSON on stdout: the managed objects found first and the objects deleted, batch by batch.
// The loop around the reconcile (its waiting, its timeout) is ours; AppProject permissions are not
// applied (getPermittedAppLiveObjects): the test's AppProject permits every kind of the bundle.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/controller"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application"
	appv1 "github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/argo"
	"github.com/argoproj/argo-cd/v3/util/helm"
	kubeutil "github.com/argoproj/argo-cd/v3/util/kube"
	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"
	resourceutil "github.com/argoproj/gitops-engine/pkg/sync/resource"
	"github.com/argoproj/gitops-engine/pkg/utils/kube"
)

// Argo CD v3's defaults when argocd-cm sets nothing: the tracking method
// (util/settings/settings.go GetTrackingMethod), the app instance label key
// (common.LabelKeyAppInstance) and no installation ID.
const (
	trackingMethod = appv1.TrackingMethodAnnotation
	installationID = ""
)

type ref struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

type report struct {
	Managed           []ref   `json:"managed"`
	PropagationPolicy string  `json:"propagationPolicy"`
	Batches           [][]ref `json:"batches"`
}

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: argocd-gc track|delete -application APP.yaml [-kubeconfig K]"))
	}
	cmd := os.Args[1]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the destination cluster (delete)")
	appFile := fs.String("application", "", "the Application, YAML")
	controllerNs := fs.String("controller-namespace", "argocd", "namespace Argo CD runs in (Application.InstanceName)")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up the deletion after this long")
	_ = fs.Parse(os.Args[2:])
	if *appFile == "" {
		fail(errors.New("-application is required"))
	}
	app, err := readApplication(*appFile)
	if err != nil {
		fail(err)
	}
	switch cmd {
	case "track":
		err = track(app, *controllerNs)
	case "delete":
		if *kubeconfig == "" {
			fail(errors.New("-kubeconfig is required"))
		}
		err = cascade(app, *controllerNs, *kubeconfig, *timeout)
	default:
		err = fmt.Errorf("unknown command %q", cmd)
	}
	if err != nil {
		fail(err)
	}
}

func readApplication(file string) (*appv1.Application, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	app := &appv1.Application{}
	if err := yaml.UnmarshalStrict(data, app); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return app, nil
}

func track(app *appv1.Application, controllerNs string) error {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	var objs []map[string]any
	if err := json.Unmarshal(data, &objs); err != nil {
		return err
	}
	rt := argo.NewResourceTracking()
	out := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		un := &unstructured.Unstructured{Object: o}
		// reposerver/repository/repository.go:1587: CRDs are not tracked.
		if kube.IsCRD(un) {
			out = append(out, un.Object)
			continue
		}
		if err := rt.SetAppInstance(un, common.LabelKeyAppInstance, app.InstanceName(controllerNs), app.Spec.Destination.Namespace, trackingMethod, installationID); err != nil {
			return fmt.Errorf("%s/%s: %w", un.GetKind(), un.GetName(), err)
		}
		out = append(out, un.Object)
	}
	return printJSON(out)
}

// isSelfReferencedApp is controller/appcontroller.go:376-383 (v3.2.6), unexported there; copied.
func isSelfReferencedApp(app *appv1.Application, ref corev1.ObjectReference) bool {
	gvk := ref.GroupVersionKind()
	return ref.UID == app.UID &&
		ref.Name == app.Name &&
		ref.Namespace == app.Namespace &&
		gvk.Group == application.Group &&
		gvk.Kind == application.ApplicationKind
}

// shouldBeDeleted is controller/appcontroller.go:1166-1170 (v3.2.6), a method of the unexported
// ApplicationController there; its one boolean expression is copied, every term Argo CD's.
func shouldBeDeleted(app *appv1.Application, obj *unstructured.Unstructured) bool {
	return !kube.IsCRD(obj) && !isSelfReferencedApp(app, kube.GetObjectRef(obj)) &&
		!resourceutil.HasAnnotationOption(obj, synccommon.AnnotationSyncOptions, synccommon.SyncOptionDisableDeletion) &&
		!resourceutil.HasAnnotationOption(obj, helm.ResourcePolicyAnnotation, helm.ResourcePolicyKeep)
}

// managedLiveObjects lists every live object of every listable, deletable kind (preferred
// versions, as the cluster cache watches) and keeps the roots whose tracking names the app.
func managedLiveObjects(ctx context.Context, cfg *rest.Config, instanceName string) ([]*unstructured.Unstructured, error) {
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	lists, err := disco.ServerPreferredResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, err
	}
	rt := argo.NewResourceTracking()
	var managed []*unstructured.Unstructured
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, err
		}
		for _, r := range l.APIResources {
			if !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "delete") {
				continue
			}
			items, err := listRetrying(ctx, dyn, gv.WithResource(r.Name))
			if err != nil {
				return nil, err
			}
			for i := range items {
				un := &items[i]
				un.SetGroupVersionKind(gv.WithKind(r.Kind))
				if len(un.GetOwnerReferences()) == 0 &&
					rt.GetAppName(un, common.LabelKeyAppInstance, trackingMethod, installationID) == instanceName {
					managed = append(managed, un)
				}
			}
		}
	}
	return managed, nil
}

// listRetrying lists a resource, retrying while the storage of a just-established CRD initializes
// (HTTP 429), as a client would.
func listRetrying(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource) ([]unstructured.Unstructured, error) {
	for attempt := 0; ; attempt++ {
		list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err == nil {
			return list.Items, nil
		}
		if attempt >= 50 {
			return nil, fmt.Errorf("list %s: %w", gvr, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func cascade(app *appv1.Application, controllerNs, kubeconfig string, timeout time.Duration) error {
	if !app.CascadedDeletion() {
		return fmt.Errorf("application %s has no resources finalizer: Argo CD deletes none of its resources", app.Name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	// controller/appcontroller.go finalizeApplicationDeletion: Foreground unless the finalizer
	// is the background one.
	propagationPolicy := metav1.DeletePropagationForeground
	if app.GetPropagationPolicy() == appv1.BackgroundPropagationPolicyFinalizer {
		propagationPolicy = metav1.DeletePropagationBackground
	}
	kubectl := kubeutil.NewKubectl()
	instanceName := app.InstanceName(controllerNs)
	rep := report{PropagationPolicy: string(propagationPolicy), Batches: [][]ref{}}
	first := true
	for {
		if ctx.Err() != nil {
			return fmt.Errorf("cascade deletion of %s did not finish in %s", app.Name, timeout)
		}
		live, err := managedLiveObjects(ctx, cfg, instanceName)
		if err != nil {
			return err
		}
		if first {
			rep.Managed = refs(live)
			first = false
		}
		pending := false
		objs := make([]*unstructured.Unstructured, 0)
		for _, o := range live {
			// "Wait for objects pending deletion to complete before proceeding with next sync wave"
			if o.GetDeletionTimestamp() != nil {
				pending = true
				break
			}
			if shouldBeDeleted(app, o) {
				objs = append(objs, o)
			}
		}
		if pending {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if len(objs) == 0 {
			// The controller now removes the finalizer: the Application is gone.
			return printJSON(rep)
		}
		filteredObjs := controller.FilterObjectsForDeletion(objs)
		err = kube.RunAllAsync(len(filteredObjs), func(i int) error {
			obj := filteredObjs[i]
			return kubectl.DeleteResource(ctx, cfg, obj.GroupVersionKind(), obj.GetName(), obj.GetNamespace(), metav1.DeleteOptions{PropagationPolicy: &propagationPolicy})
		})
		if err != nil {
			return err
		}
		rep.Batches = append(rep.Batches, refs(filteredObjs))
	}
}

func refs(objs []*unstructured.Unstructured) []ref {
	out := make([]ref, 0, len(objs))
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		out = append(out, ref{Group: gvk.Group, Kind: gvk.Kind, Namespace: o.GetNamespace(), Name: o.GetName()})
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

func printJSON(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Println(string(data))
	return err
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "argocd-gc:", err)
	os.Exit(1)
}
