import { render } from '../../lib/render';
import { renderDelivery, type DeliveryFolders } from '../../lib/render/delivery';
import { planOf, type ModelDraft } from './models';

/** WHEN the delivery objects of a model are rendered, from its plan and its rendered bundles. */
export function deliveryOf(m: ModelDraft): DeliveryFolders {
  const p = planOf(m);
  return renderDelivery(p, render(p));
}
