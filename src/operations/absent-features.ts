import { loadSpec } from './spec.js';

/**
 * A product of the widely used payments API that this server does not offer (`x-absent-features`).
 * With `operations`, its parameters belong to it only in those operations (a refund's `customer`
 * is a refund to a customer's balance; a charge's is not).
 */
interface AbsentFeature {
  feature: string;
  about: string;
  parameters: string[];
  operations?: string[];
}

let features: AbsentFeature[] | undefined;

/**
 * The product a request parameter belongs to, when the spec lists it among the parameters of
 * products this server does not offer (its root `x-absent-features`), in every operation or in
 * `operationId`; undefined otherwise. Only a top-level name counts: a nested one belongs to a
 * parameter this server does read.
 */
export function absentFeatureOf(parameter: string, operationId?: string): AbsentFeature | undefined {
  features ??= (loadSpec()['x-absent-features'] ?? []) as AbsentFeature[];
  const listed = features.filter((feature) => feature.parameters.includes(parameter));
  return (
    listed.find((feature) => operationId !== undefined && feature.operations?.includes(operationId)) ??
    listed.find((feature) => !feature.operations)
  );
}
