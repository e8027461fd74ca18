/** Schemas shared by several tool families. */
import { Type, type TSchema } from '@sinclair/typebox';

/** The contract's error object. */
export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      type: Type.String(),
      message: Type.String(),
      retry_after: Type.Optional(Type.Integer()),
    }),
  },
  { $id: undefined },
);

/** Standard error responses of an operation, for the OpenAPI document. */
export function errorResponses(...codes: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const code of codes) out[code] = ErrorBody;
  return out;
}

/** A location id in a query string: an integer (0 = anywhere). */
export const LocationId = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });
export const LanguageId = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });

/** Short/reference location `{_id, label, code}`. */
export const ShortLocation = Type.Object({ _id: Type.Integer(), label: Type.String(), code: Type.String() });
