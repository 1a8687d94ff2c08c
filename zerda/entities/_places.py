"""Places: countries, US states, Canadian provinces, large cities (GPE), and continents,
regions, rivers, mountains, seas and deserts (LOC).

Left out on purpose: places that are everyday words or common surnames (Nice, Reading,
Bath, Mobile, Split, Lincoln, Jackson, Madison), which would cost more than they find.
"""

from __future__ import annotations

from zerda.entities._lists import rows, words

COUNTRIES = rows(
    """
    Afghanistan, Albania, Algeria, Andorra, Angola, Antigua and Barbuda, Argentina, Armenia
    Australia, Austria, Azerbaijan, Bahamas, Bahrain, Bangladesh, Barbados, Belarus, Belgium
    Belize, Benin, Bhutan, Bolivia, Bosnia and Herzegovina, Botswana, Brazil, Brunei, Bulgaria
    Burkina Faso, Burundi, Cambodia, Cameroon, Canada, Cape Verde, Central African Republic
    Chad, Chile, China, Colombia, Comoros, Congo, Costa Rica, Croatia, Cuba, Cyprus, Czechia
    Czech Republic, Democratic Republic of the Congo, Denmark, Djibouti, Dominica
    Dominican Republic, East Timor, Timor-Leste, Ecuador, Egypt, El Salvador
    Equatorial Guinea, Eritrea, Estonia, Eswatini, Ethiopia, Fiji, Finland, France, Gabon
    Gambia, Germany, Ghana, Greece, Grenada, Guatemala, Guinea, Guinea-Bissau, Guyana, Haiti
    Honduras, Hungary, Iceland, India, Indonesia, Iran, Iraq, Ireland, Israel, Italy
    Ivory Coast, Jamaica, Japan, Kazakhstan, Kenya, Kiribati, Kosovo, Kuwait, Kyrgyzstan, Laos
    Latvia, Lebanon, Lesotho, Liberia, Libya, Liechtenstein, Lithuania, Luxembourg, Madagascar
    Malawi, Malaysia, Maldives, Mali, Malta, Marshall Islands, Mauritania, Mauritius, Mexico
    Micronesia, Moldova, Monaco, Mongolia, Montenegro, Morocco, Mozambique, Myanmar, Burma
    Namibia, Nauru, Nepal, Netherlands, New Zealand, Nicaragua, Niger, Nigeria, North Korea
    North Macedonia, Norway, Oman, Pakistan, Palau, Palestine, Panama, Papua New Guinea
    Paraguay, Peru, Philippines, Poland, Portugal, Qatar, Romania, Russia, Rwanda
    Saint Kitts and Nevis, Saint Lucia, Samoa, San Marino, Saudi Arabia, Senegal, Serbia
    Seychelles, Sierra Leone, Singapore, Slovakia, Slovenia, Solomon Islands, Somalia
    South Africa, South Korea, South Sudan, Spain, Sri Lanka, Sudan, Suriname, Sweden
    Switzerland, Syria, Taiwan, Tajikistan, Tanzania, Thailand, Togo, Tonga
    Trinidad and Tobago, Tunisia, Turkey, Türkiye, Turkmenistan, Tuvalu, Uganda, Ukraine
    United Arab Emirates, UAE, United Kingdom, UK, U.K., Great Britain, Britain, England
    Scotland, Wales, Northern Ireland, United States, United States of America, USA, U.S.A.
    US, U.S., America, Uruguay, Uzbekistan, Vanuatu, Vatican City, Venezuela, Vietnam
    Yemen, Zambia, Zimbabwe, Korea, Holland, Hong Kong, Macau, Puerto Rico, Greenland
    """
)

US_STATES = rows(
    """
    Alabama, Alaska, Arizona, Arkansas, California, Colorado, Connecticut, Delaware, Florida
    Georgia, Hawaii, Idaho, Illinois, Indiana, Iowa, Kansas, Kentucky, Louisiana, Maine
    Maryland, Massachusetts, Michigan, Minnesota, Mississippi, Missouri, Montana, Nebraska
    Nevada, New Hampshire, New Jersey, New Mexico, New York State, North Carolina
    North Dakota, Ohio, Oklahoma, Oregon, Pennsylvania, Rhode Island, South Carolina
    South Dakota, Tennessee, Texas, Utah, Vermont, Virginia, Washington State, West Virginia
    Wisconsin, Wyoming, D.C., Washington D.C.
    """
)

PROVINCES = rows(
    """
    Alberta, British Columbia, Manitoba, New Brunswick, Newfoundland and Labrador
    Nova Scotia, Ontario, Prince Edward Island, Quebec, Québec, Saskatchewan, Yukon
    Northwest Territories, Nunavut, New South Wales, Queensland, Tasmania, Bavaria, Catalonia
    Andalusia, Tuscany, Sicily, Sardinia, Brittany, Normandy, Provence, Flanders, Wallonia
    """
)

CITIES = rows(
    """
    New York, New York City, NYC, Los Angeles, L.A., Chicago, Houston, Phoenix, Philadelphia
    San Antonio, San Diego, San Jose, Austin, Jacksonville, Fort Worth, Columbus, Charlotte
    Indianapolis, San Francisco, Seattle, Denver, Washington, Boston, El Paso, Nashville
    Detroit, Oklahoma City, Portland, Las Vegas, Memphis, Louisville, Baltimore, Milwaukee
    Albuquerque, Tucson, Fresno, Sacramento, Kansas City, Atlanta, Miami, Raleigh, Omaha
    Minneapolis, Tulsa, Cleveland, New Orleans, Honolulu, Pittsburgh, Cincinnati, St. Louis
    Orlando, Tampa, Anchorage, Toronto, Montreal, Montréal, Vancouver, Calgary, Edmonton
    Ottawa, Winnipeg, Quebec City, Halifax, Mexico City, Guadalajara, Monterrey, Cancún
    Havana, Bogotá, Bogota, Medellín, Lima, Quito, Caracas, Santiago, Buenos Aires
    Montevideo, São Paulo, Sao Paulo, Rio de Janeiro, Brasília, Salvador, London, Manchester
    Birmingham, Liverpool, Leeds, Glasgow, Edinburgh, Bristol, Belfast, Cardiff, Dublin, Cork
    Paris, Marseille, Lyon, Toulouse, Bordeaux, Lille, Strasbourg, Brussels, Antwerp
    Amsterdam, Rotterdam, The Hague, Utrecht, Luxembourg City, Berlin, Hamburg, Munich
    Cologne, Frankfurt, Stuttgart, Düsseldorf, Leipzig, Dresden, Vienna, Zurich, Zürich
    Geneva, Basel, Bern, Madrid, Barcelona, Valencia, Seville, Bilbao, Lisbon, Porto, Rome
    Milan, Naples, Turin, Florence, Venice, Bologna, Palermo, Athens, Thessaloniki, Istanbul
    Ankara, Izmir, Copenhagen, Stockholm, Gothenburg, Oslo, Bergen, Helsinki, Reykjavik
    Reykjavík, Tallinn, Riga, Vilnius, Warsaw, Krakow, Kraków, Prague, Bratislava, Budapest
    Ljubljana, Zagreb, Belgrade, Sarajevo, Sofia, Bucharest, Chisinau, Kyiv, Kiev, Lviv
    Odesa, Odessa, Minsk, Moscow, Saint Petersburg, St. Petersburg, Tbilisi, Yerevan, Baku
    Cairo, Alexandria, Casablanca, Marrakesh, Marrakech, Rabat, Tunis, Algiers, Tripoli
    Lagos, Abuja, Accra, Dakar, Nairobi, Mombasa, Addis Ababa, Kampala, Kigali
    Dar es Salaam, Kinshasa, Luanda, Johannesburg, Cape Town, Durban, Pretoria, Harare
    Lusaka, Maputo, Windhoek, Dubai, Abu Dhabi, Doha, Riyadh, Jeddah, Mecca, Medina, Muscat
    Kuwait City, Manama, Tehran, Baghdad, Damascus, Beirut, Amman, Jerusalem, Tel Aviv
    Karachi, Lahore, Islamabad, Kabul, Delhi, New Delhi, Mumbai, Bombay, Bangalore, Bengaluru
    Chennai, Kolkata, Hyderabad, Pune, Ahmedabad, Jaipur, Dhaka, Kathmandu, Colombo
    Beijing, Shanghai, Shenzhen, Guangzhou, Chengdu, Chongqing, Wuhan, Xi'an, Hangzhou
    Nanjing, Tianjin, Taipei, Tokyo, Osaka, Kyoto, Yokohama, Nagoya, Sapporo, Fukuoka
    Hiroshima, Seoul, Busan, Pyongyang, Ulaanbaatar, Bangkok, Chiang Mai, Hanoi
    Ho Chi Minh City, Saigon, Phnom Penh, Vientiane, Yangon, Kuala Lumpur, Jakarta, Bali
    Manila, Cebu, Sydney, Melbourne, Brisbane, Perth, Adelaide, Canberra, Hobart, Auckland
    Wellington, Christchurch, Almaty, Astana, Tashkent
    """
)

# Continents, regions, seas, rivers, mountains, deserts, parks: places that are not states.
LOCATIONS = rows(
    """
    Africa, Antarctica, Asia, Europe, North America, South America, Latin America
    Central America, Oceania, Eurasia, Middle East, Near East, Far East, Southeast Asia
    East Asia, South Asia, Central Asia, Western Europe, Eastern Europe, Scandinavia
    Balkans, Caribbean, Mediterranean, Siberia, Patagonia, Arctic, Antarctic, Sahel
    Silicon Valley, Midwest, New England, West Coast, East Coast, Pacific Northwest
    Atlantic, Pacific, Atlantic Ocean, Pacific Ocean, Indian Ocean, Arctic Ocean
    Southern Ocean, Mediterranean Sea, Caribbean Sea, Baltic Sea, North Sea, Black Sea
    Red Sea, Dead Sea, Caspian Sea, South China Sea, Arabian Sea, Aegean Sea, Adriatic
    Persian Gulf, Gulf of Mexico, English Channel, Great Lakes, Lake Superior
    Lake Michigan, Lake Victoria, Lake Baikal, Lake Titicaca, Lake Tahoe, Lake Geneva
    Nile, Amazon River, Mississippi River, Yangtze, Ganges, Mekong, Danube, Rhine, Rhône
    Seine, Thames, Volga, Loire, Elbe, Tiber, Tigris, Euphrates, Zambezi, Indus
    Yellow River, Rio Grande, Hudson River, Colorado River, St. Lawrence River
    Alps, Andes, Himalayas, Rockies, Rocky Mountains, Pyrenees, Urals, Appalachians
    Carpathians, Dolomites, Atlas Mountains, Everest, Mount Everest, Kilimanjaro
    Mount Kilimanjaro, Mont Blanc, Matterhorn, Denali, Mount Fuji, Fuji, Mount Olympus
    Mount Rainier, Aconcagua, Elbrus, K2, Sahara, Gobi, Kalahari, Atacama, Mojave
    Grand Canyon, Death Valley, Yosemite, Yellowstone, Serengeti, Great Barrier Reef
    Amazon rainforest, Outback, Iberian Peninsula, Arabian Peninsula, Balkan Peninsula
    """
)

GPE = COUNTRIES | US_STATES | PROVINCES | CITIES

# The same word ahead of a facility's name is not the place: "Berlin Wall", "Boston Marathon".
FACILITY_WORDS = words(
    """
    Wall Airport Station Bridge Tower Street St. Avenue Ave Road Rd Square Park Palace
    Cathedral Museum Stadium Arena Hotel Hospital Center Centre Zoo Castle Gate Building
    Hall Marathon Pride Symphony Philharmonic Opera Theatre Theater Mall Harbor Harbour
    Declaration Agreement Accord Accords Protocol Treaty Convention Summit Times Post
    """
)

# "Mount X", "Lake X"; "X River", "X Mountains": capitalised words with these are LOC.
LOC_PREFIXES = words("Mount Mt. Lake Cape Isle")
LOC_SUFFIXES = words(
    """
    River Mountains Mountain Ocean Sea Lake Island Islands Desert Valley Canyon Peninsula
    Falls Glacier Range Basin Plateau Bay Strait Gulf Highlands Archipelago Delta
    """
)

# "Gulf of X", "Bay of X": LOC, with what follows `of`.
LOC_OF_HEADS = words("Gulf Bay Sea Strait Isle Cape Lake")

# Places (and organisations) that are also everyday words: not at a sentence start.
WORDLIKE = words("Turkey Chad Jersey Guinea Georgia Jordan")
