/**
 * @module The standardised instruments the platform knows (docs/domain.md, 'Standardised instruments'). `instrument` stays a free string — centres
 * license other tools, and editions change — but these spellings are the documented ones, so reports group them.
 * No item content is ever stored (the instruments are copyrighted): only scores.
 */
export const KNOWN_INSTRUMENTS = {
  'PLS-5': 'Preschool Language Scales, 5th ed. (birth–7:11): Auditory Comprehension, Expressive Communication',
  'CELF-5': 'Clinical Evaluation of Language Fundamentals, 5th ed. (5:0–21:11)',
  'CELF-P3': 'CELF Preschool, 3rd ed. (3:0–6:11)',
  'GFTA-3': 'Goldman-Fristoe Test of Articulation, 3rd ed.',
  'PDMS-2': 'Peabody Developmental Motor Scales, 2nd ed.',
  'PDMS-3': 'Peabody Developmental Motor Scales, 3rd ed. (birth–5:11)',
  'Bayley-4': 'Bayley Scales of Infant and Toddler Development, 4th ed. (16 days–42 months)',
  'BOT-2': 'Bruininks-Oseretsky Test of Motor Proficiency, 2nd ed.',
  'Sensory Profile 2': 'Sensory Profile 2 (caregiver questionnaire)',
  'Vineland-3': 'Vineland Adaptive Behavior Scales, 3rd ed.',
  'BDI-3': 'Battelle Developmental Inventory, 3rd ed. (birth–7:11); Part C eligibility',
} as const

export type KnownInstrument = keyof typeof KNOWN_INSTRUMENTS
