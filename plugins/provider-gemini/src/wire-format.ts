/**
 * The Gemini API's wire format id (the Generative Language API's `generateContent`): the
 * provider's codec and the gateway dialect of this package both speak it, so a Gemini client's
 * request and a Gemini vendor's answer pass through between them.
 */
export const GEMINI_GENERATE_CONTENT = 'google.generate-content';
