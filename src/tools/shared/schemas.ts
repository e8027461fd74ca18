/** Schemas of the /shared family: locations (the `Location` component is common to every family). */
import { Type } from '@sinclair/typebox';
import { Location, Ref } from '../common/schemas.js';

export const LocationParams = Type.Object({ location: Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 }) });
export const LocationSearchQuery = Type.Object({ query: Type.String({ minLength: 1, maxLength: 200 }) });
export const LocationAnswer = Ref(Location);
export const LocationSearchAnswer = Type.Array(Ref(Location), { description: 'Up to 100 active locations, countries first' });
