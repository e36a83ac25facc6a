// Command argocd-gc sets Argo CD's resource tracking on a bundle and later runs the cascade deletion
// of its Application the way Argo CD's application controller does, with Argo CD's own code:
// github.com/argoproj/argo-cd/v3 at the version pinned in go.mod (v3.2.6) and the gitops-engine it
// requires.
//
//	argocd-gc track  -application APP.yaml < objects.json > tracked.json
//	argocd-gc delete -kubeconfig K -project-kubeconfig M -application APP.yaml [-cluster-name N] [-cluster-server URL]
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
//   - the Application's AppProject, read live from the management cluster (-project-kubeconfig, in
//     the controller namespace) at every reconcile, as the controller reads it from its informer
//     (getAppProj, with AppProject.IsAppNamespacePermitted); while it cannot be read (deleted, say)
//     the reconcile fails and is retried, deleting nothing;
//   - the managed live objects: every live root object (no owner references) whose tracking names
//     the Application (util/argo GetAppName == Application.InstanceName, as controller/cache
//     populates ResourceInfo.AppName and filters in GetManagedLiveObjs);
//   - of those, the ones the project permits, as getPermittedAppLiveObjects keeps them: Argo CD's
//     AppProject.IsLiveResourcePermitted (the kind against the cluster or namespace whitelists and
//     blacklists; for a namespaced object also the destination, IsDestinationPermitted, with the
//     destination cluster as registered: -cluster-server / -cluster-name, by default the
//     Application's destination). The others are neither deleted nor waited for;
//   - while any permitted one has a deletionTimestamp, wait (the controller returns and reconciles
//     later);
//   - else keep those that the cascade deletes (keptOnCascade: our code for the rules of Argo CD's
//     unexported shouldBeDeleted), order them with controller.FilterObjectsForDeletion and delete
//     that batch with gitops-engine's kubectl DeleteResource (util/kube NewKubectl) and
//     kube.RunAllAsync, with the propagation policy Application.GetPropagationPolicy selects.
//
// It prints JSON on stdout: the managed objects found first, the objects deleted, batch by batch,
// and what was left: the objects the project did not permit at the last reconcile, those kept by
// rule (with the rule), and why reconciles failed. Ours: the loop around the reconcile (its waiting,
// its timeout), keptOnCascade, and reading the project with a dynamic client. Not modelled: cluster
// Secrets scoped to a project (permitOnlyProjectScopedClusters is refused), global projects
// (argocd-cm globalProjects), resources that require deletion confirmation, post-delete hooks.
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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// kept is a managed object the cascade deletion leaves, and the rule that keeps it.
type kept struct {
	ref
	Reason string `json:"reason"`
}

type report struct {
	// Managed: the Application's managed live objects, at the first reconcile that read its project.
	Managed           []ref   `json:"managed"`
	PropagationPolicy string  `json:"propagationPolicy"`
	Batches           [][]ref `json:"batches"`
	// Unpermitted: the managed objects the project did not permit at the last reconcile, left behind.
	Unpermitted []ref `json:"unpermitted"`
	// Kept: the permitted managed objects that are never deleted (keptOnCascade), left behind.
	Kept []kept `json:"kept"`
	// FailedReconciles: why reconciles failed before one could run (e.g. the AppProject missing).
	FailedReconciles []string `json:"failedReconciles"`
}

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: argocd-gc track|delete -application APP.yaml [-kubeconfig K]"))
	}
	cmd := os.Args[1]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the destination cluster (delete)")
	projectKubeconfig := fs.String("project-kubeconfig", "", "kubeconfig of the management cluster, where the Application's AppProject lives (delete)")
	clusterName := fs.String("cluster-name", "", "name the destination cluster is registered under (argocd cluster add --name); default: the destination's name")
	clusterServer := fs.String("cluster-server", "", "server URL the destination cluster is registered under; default: the destination's server")
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
		if *kubeconfig == "" || *projectKubeconfig == "" {
			fail(errors.New("-kubeconfig and -project-kubeconfig are required"))
		}
		dest := &appv1.Cluster{Server: app.Spec.Destination.Server, Name: app.Spec.Destination.Name}
		if *clusterServer != "" {
			dest.Server = *clusterServer
		}
		if *clusterName != "" {
			dest.Name = *clusterName
		}
		err = cascade(app, dest, *controllerNs, *kubeconfig, *projectKubeconfig, *timeout)
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

// keptOnCascade says why the cascade deletion of app leaves the managed object obj in place, or ""
// when it deletes it. The rules are those of shouldBeDeleted in controller/appcontroller.go:1165-1170
// (v3.2.6, with isSelfReferencedApp at :376-383), which Argo CD documents in
// docs/user-guide/app_deletion.md and sync-options.md ("Resource Deletion"); written here as our own
// checks, each with the reason it reports, using Argo CD's exported helpers for what they test:
//   - a CustomResourceDefinition is never deleted: deleting one would delete every object of its
//     kind, in every namespace, whoever made them (gitops-engine kube.IsCRD);
//   - the Application being deleted, should it manage itself (an Application that tracks its own
//     manifest), is left to the finalizer, not deleted from under it: the same kind in Argo CD's
//     group, the same namespace, name and UID;
//   - an object whose argocd.argoproj.io/sync-options list Delete=false;
//   - an object that Helm's helm.sh/resource-policy annotation says to keep.
func keptOnCascade(app *appv1.Application, obj *unstructured.Unstructured) string {
	switch {
	case kube.IsCRD(obj):
		return "CustomResourceDefinition"
	case isTheApplication(app, obj):
		return "the Application itself"
	case resourceutil.HasAnnotationOption(obj, synccommon.AnnotationSyncOptions, synccommon.SyncOptionDisableDeletion):
		return synccommon.AnnotationSyncOptions + ": " + synccommon.SyncOptionDisableDeletion
	case resourceutil.HasAnnotationOption(obj, helm.ResourcePolicyAnnotation, helm.ResourcePolicyKeep):
		return helm.ResourcePolicyAnnotation + ": " + helm.ResourcePolicyKeep
	}
	return ""
}

// isTheApplication: obj is app's own Application object (kind and group first, then identity).
func isTheApplication(app *appv1.Application, obj *unstructured.Unstructured) bool {
	self := schema.GroupKind{Group: application.Group, Kind: application.ApplicationKind}
	if obj.GroupVersionKind().GroupKind() != self {
		return false
	}
	return obj.GetUID() == app.UID && obj.GetNamespace() == app.Namespace && obj.GetName() == app.Name
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

// liveProject reads the Application's AppProject from the management cluster, as the controller
// reads it from its informer at every reconcile (controller/appcontroller.go getAppProj, :415-432),
// and checks, as getAppProj does, that the project admits Applications of the Application's namespace.
func liveProject(ctx context.Context, mgmt dynamic.Interface, app *appv1.Application, controllerNs string) (*appv1.AppProject, error) {
	gvr := appv1.SchemeGroupVersion.WithResource(application.AppProjectPlural)
	un, err := mgmt.Resource(gvr).Namespace(controllerNs).Get(ctx, app.Spec.GetProject(), metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("AppProject %s/%s: %w", controllerNs, app.Spec.GetProject(), err)
	}
	data, err := un.MarshalJSON()
	if err != nil {
		return nil, err
	}
	proj := &appv1.AppProject{}
	if err := json.Unmarshal(data, proj); err != nil {
		return nil, fmt.Errorf("AppProject %s/%s: %w", controllerNs, proj.Name, err)
	}
	if !proj.IsAppNamespacePermitted(app, controllerNs) {
		return nil, fmt.Errorf("application %s/%s may not use project %s", app.Namespace, app.Name, proj.Name)
	}
	return proj, nil
}

// noProjectClusters stands for the cluster Secrets scoped to a project (db.GetProjectClusters): there
// are none here, so a project that permits only project-scoped clusters is refused rather than guessed.
func noProjectClusters(project string) ([]*appv1.Cluster, error) {
	return nil, fmt.Errorf("project %s: permitOnlyProjectScopedClusters is not modelled by argocd-gc", project)
}

func cascade(app *appv1.Application, dest *appv1.Cluster, controllerNs, kubeconfig, projectKubeconfig string, timeout time.Duration) error {
	if !app.CascadedDeletion() {
		return fmt.Errorf("application %s has no resources finalizer: Argo CD deletes none of its resources", app.Name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	mgmtCfg, err := clientcmd.BuildConfigFromFlags("", projectKubeconfig)
	if err != nil {
		return err
	}
	mgmt, err := dynamic.NewForConfig(mgmtCfg)
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
	rep := report{PropagationPolicy: string(propagationPolicy), Batches: [][]ref{}, Unpermitted: []ref{}, Kept: []kept{}, FailedReconciles: []string{}}
	first := true
	var lastErr error
	for {
		if ctx.Err() != nil {
			if lastErr != nil {
				return fmt.Errorf("cascade deletion of %s did not finish in %s; last reconcile: %w", app.Name, timeout, lastErr)
			}
			return fmt.Errorf("cascade deletion of %s did not finish in %s", app.Name, timeout)
		}
		// A reconcile that cannot read the project fails and is retried, as the controller's is:
		// nothing is deleted meanwhile, and the Application stays with its finalizer.
		proj, err := liveProject(ctx, mgmt, app, controllerNs)
		if err != nil {
			if lastErr == nil || lastErr.Error() != err.Error() {
				rep.FailedReconciles = append(rep.FailedReconciles, err.Error())
			}
			lastErr = err
			if !apierrors.IsNotFound(errors.Unwrap(err)) && !apierrors.IsNotFound(err) {
				fmt.Fprintln(os.Stderr, "argocd-gc: reconcile:", err)
			}
			time.Sleep(200 * time.Millisecond)
			continue
		}
		lastErr = nil
		live, err := managedLiveObjects(ctx, cfg, instanceName)
		if err != nil {
			return err
		}
		if first {
			rep.Managed = refs(live)
			first = false
		}
		// getPermittedAppLiveObjects (controller/appcontroller.go:1172-1189): what the project does
		// not permit (kind, or destination for a namespaced object) is neither deleted nor waited for.
		permitted := make([]*unstructured.Unstructured, 0, len(live))
		unpermitted := make([]*unstructured.Unstructured, 0)
		for _, o := range live {
			ok, err := proj.IsLiveResourcePermitted(o, dest, noProjectClusters)
			if err != nil {
				return err
			}
			if ok {
				permitted = append(permitted, o)
			} else {
				unpermitted = append(unpermitted, o)
			}
		}
		pending := false
		objs := make([]*unstructured.Unstructured, 0)
		var keptNow []kept
		for _, o := range permitted {
			// "Wait for objects pending deletion to complete before proceeding with next sync wave"
			if o.GetDeletionTimestamp() != nil {
				pending = true
				break
			}
			if why := keptOnCascade(app, o); why != "" {
				keptNow = append(keptNow, kept{ref: refOf(o), Reason: why})
			} else {
				objs = append(objs, o)
			}
		}
		if pending {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if len(objs) == 0 {
			// The controller now removes the finalizer: the Application is gone, and with it
			// Argo CD's hold on whatever it did not delete.
			rep.Unpermitted = refs(unpermitted)
			if keptNow != nil {
				rep.Kept = keptNow
			}
			sort.Slice(rep.Kept, func(i, j int) bool { return fmt.Sprint(rep.Kept[i]) < fmt.Sprint(rep.Kept[j]) })
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

func refOf(o *unstructured.Unstructured) ref {
	gvk := o.GroupVersionKind()
	return ref{Group: gvk.Group, Kind: gvk.Kind, Namespace: o.GetNamespace(), Name: o.GetName()}
}

func refs(objs []*unstructured.Unstructured) []ref {
	out := make([]ref, 0, len(objs))
	for _, o := range objs {
		out = append(out, refOf(o))
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
