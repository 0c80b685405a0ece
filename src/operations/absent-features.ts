import { loadSpec } from './spec.js';

/** A product of the widely used payments API that this server does not offer (`x-absent-features`). */
interface AbsentFeature {
  feature: string;
  about: string;
  parameters: string[];
}

let byParameter: Map<string, AbsentFeature> | undefined;

/**
 * The product a request parameter belongs to, when the spec lists it among the parameters of
 * products this server does not offer (its root `x-absent-features`); undefined otherwise. Only
 * a top-level name counts: a nested one belongs to a parameter this server does read.
 */
export function absentFeatureOf(parameter: string): AbsentFeature | undefined {
  if (!byParameter) {
    const features = (loadSpec()['x-absent-features'] ?? []) as AbsentFeature[];
    byParameter = new Map(
      features.flatMap((feature) => feature.parameters.map((name) => [name, feature] as const)),
    );
  }
  return byParameter.get(parameter);
}
