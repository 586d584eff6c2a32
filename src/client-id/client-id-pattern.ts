/**
 * Client id values accepted in the client id header.
 *
 * @publicApi
 */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
